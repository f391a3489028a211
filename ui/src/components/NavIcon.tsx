import type { NavIcon as NavIconName } from "../lib/nav";
import {
  AlertsIcon,
  ClockIcon,
  ContactsIcon,
  DashboardIcon,
  FolderIcon,
  HomeIcon,
  type IconProps,
  KeyIcon,
  ReportsIcon,
  SettingsIcon,
  ShieldIcon,
  SignOutIcon,
  SlidersIcon,
  UserIcon,
} from "./icons";

const ICONS: Record<NavIconName, (p: IconProps) => preact.JSX.Element> = {
  dashboard: DashboardIcon,
  reports: ReportsIcon,
  alerts: AlertsIcon,
  settings: SettingsIcon,
  alertSettings: SlidersIcon,
  groups: FolderIcon,
  distribution: ContactsIcon,
  admin: ShieldIcon,
  maintenance: ClockIcon,
  site: KeyIcon,
  user: UserIcon,
  home: HomeIcon,
  signout: SignOutIcon,
};

export function NavIcon({ name, ...p }: IconProps & { name: NavIconName }) {
  const Icon = ICONS[name];
  return <Icon {...p} />;
}
