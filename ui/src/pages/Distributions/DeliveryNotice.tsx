// Says plainly which contact types cannot be sent on this site (no mail server or gateway
// configured): their notifications are recorded but not sent.
import { useLingui } from "@lingui/react/macro";
import { useDistributionTypes } from "../../api/queries/distributions";

export function DeliveryNotice() {
  const { t } = useLingui();
  const types = useDistributionTypes();
  const missing = (types.data ?? []).filter((x) => !x.configured);
  if (!missing.length) return null;
  const name = (id: number) => (id === 1 ? t`Email` : id === 2 ? t`SMS` : t`Voice`);
  const names = missing.map((x) => name(x.id)).join(", ");
  return (
    <p class="card notice" role="status" data-testid="delivery-notice">
      {t`Not configured on this site: ${names}. Notifications to these contacts are recorded but not sent.`}
    </p>
  );
}
