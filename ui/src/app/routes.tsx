// The route table (spec §2). Add a screen by adding a line here.
import type { ComponentType } from "preact";
import { CallbackPage } from "../pages/Callback";
import { DashboardPage } from "../pages/Dashboard";
import { LoginPage } from "../pages/Login";
import { AlertSettingsPage, DistributionListsPage, TestCaseGroupsPage } from "../pages/Settings";
import { UserEditPage } from "../pages/Users/EditPage";
import { UsersListPage } from "../pages/Users/ListPage";

export interface RouteDef {
  /** A wouter pattern, e.g. `/report/view/:id`. */
  path: string;
  component: ComponentType;
  /**
   * `protected`: signed-in users only, inside the shell (signed-out users go to /).
   * `guest`: the login page (signed-in users go to /dashboard).
   * `public`: anyone, no shell.
   */
  access: "protected" | "guest" | "public";
}

export const routes: RouteDef[] = [
  { path: "/", component: LoginPage, access: "guest" },
  { path: "/callback", component: CallbackPage, access: "public" },
  { path: "/dashboard", component: DashboardPage, access: "protected" },
  // Settings lists: the id in the path selects the list (1, 2, 3, 4).
  { path: "/settings/alert-settings/:id", component: AlertSettingsPage, access: "protected" },
  { path: "/settings/test-case-group/:id", component: TestCaseGroupsPage, access: "protected" },
  { path: "/settings/distribution-list/:id", component: DistributionListsPage, access: "protected" },
  { path: "/settings/admin-settings/:id", component: UsersListPage, access: "protected" },
  { path: "/users/:id", component: UserEditPage, access: "protected" },
];
