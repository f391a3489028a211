// Says plainly which contact types cannot be sent on this site (no mail server or gateway
// configured): their notifications are recorded but not sent.
import { useLingui } from "@lingui/react/macro";
import { useDistributionTypes } from "../../api/queries/distributions";
import { useContactTypeName } from "./columns";

export function DeliveryNotice() {
  const { t } = useLingui();
  const types = useDistributionTypes();
  const shown = useContactTypeName();
  const missing = (types.data ?? []).filter((x) => !x.configured);
  if (!missing.length) return null;
  // The four webhook channels are turned on together ([notify.webhook]): named once.
  const spec = missing.filter((x) => x.id < 8).map((x) => shown(x.name));
  const names = [...spec, ...(missing.some((x) => x.id >= 8) ? [t`Webhooks`] : [])].join(", ");
  return (
    <p class="card notice" role="status" data-testid="delivery-notice">
      {t`Not configured on this site: ${names}. Notifications to these contacts are recorded but not sent.`}
    </p>
  );
}
