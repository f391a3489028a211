// The route table (spec §2). Add a screen by adding a line here.
import type { ComponentType } from "preact";
import { CallbackPage } from "../pages/Callback";
import { DashboardPage } from "../pages/Dashboard";
import { LoginPage } from "../pages/Login";

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
];
