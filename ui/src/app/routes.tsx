// The route table (spec §2). Add a screen by adding a line here.
import type { MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import type { ComponentType } from "preact";
import { lazy } from "react";
import { CallbackPage } from "../pages/Callback";
import { DashboardPage } from "../pages/Dashboard";
import { LoginPage } from "../pages/Login";

// The sign-in page and the dashboard (where a sign-in lands) come with the first script; the
// settings screens are loaded when first opened, each in its own file.
const AlertSettingsPage = lazy(() =>
  import("../pages/AlertSettings/ListPage").then((m) => ({ default: m.AlertSettingListPage })),
);
const AlertSettingEditPage = lazy(() =>
  import("../pages/AlertSettings/EditPage").then((m) => ({ default: m.AlertSettingEditPage })),
);
const AutoTicketsPage = lazy(() =>
  import("../pages/AlertSettings/AutoTicketsPage").then((m) => ({ default: m.AutoTicketsPage })),
);
const TestCaseGroupsPage = lazy(() =>
  import("../pages/Groups/ListPage").then((m) => ({ default: m.TestCaseGroupsPage })),
);
const DistributionListsPage = lazy(() =>
  import("../pages/Distributions/ListPage").then((m) => ({ default: m.DistributionListPage })),
);
const DistributionEditPage = lazy(() =>
  import("../pages/Distributions/EditPage").then((m) => ({ default: m.DistributionEditPage })),
);
const AlertListPage = lazy(() => import("../pages/Alerts/ListPage").then((m) => ({ default: m.AlertListPage })));
const HandoverPage = lazy(() => import("../pages/Alerts/HandoverPage").then((m) => ({ default: m.HandoverPage })));
const AlertDetailPage = lazy(() => import("../pages/Alerts/DetailPage").then((m) => ({ default: m.AlertDetailPage })));
const IncidentListPage = lazy(() =>
  import("../pages/Incidents/ListPage").then((m) => ({ default: m.IncidentListPage })),
);
const IncidentPage = lazy(() => import("../pages/Incidents/IncidentPage").then((m) => ({ default: m.IncidentPage })));
const DrillPage = lazy(() => import("../pages/Drill").then((m) => ({ default: m.DrillPage })));
const RunDetailPage = lazy(() => import("../pages/RunDetail").then((m) => ({ default: m.RunDetailPage })));
const UsersListPage = lazy(() => import("../pages/Users/ListPage").then((m) => ({ default: m.UsersListPage })));
const reports = (page: "ReportsListPage" | "ReportEditPage" | "ReportViewPage" | "LatencyRunsPage" | "MosRunsPage") =>
  lazy(() => import("../pages/Reports").then((m) => ({ default: m[page] })));
const ReportsListPage = reports("ReportsListPage");
const ReportEditPage = reports("ReportEditPage");
const ReportViewPage = reports("ReportViewPage");
const LatencyRunsPage = reports("LatencyRunsPage");
const MosRunsPage = reports("MosRunsPage");
const MaintenanceListPage = lazy(() =>
  import("../pages/Maintenance/ListPage").then((m) => ({ default: m.MaintenanceListPage })),
);
const MaintenanceEditPage = lazy(() =>
  import("../pages/Maintenance/EditPage").then((m) => ({ default: m.MaintenanceEditPage })),
);
const SitePage = lazy(() => import("../pages/Site/SitePage").then((m) => ({ default: m.SitePage })));
const UserEditPage = lazy(() => import("../pages/Users/EditPage").then((m) => ({ default: m.UserEditPage })));

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
  /**
   * The page's name in the browser tab ('Alerts – cxwatch'), in the reader's language; `App`
   * sets it for every route (the dashboard then adds its worst state).
   */
  title: MessageDescriptor;
}

/** What the tab says where no route matches. */
export const NOT_FOUND_TITLE = msg`Page not found`;

export const routes: RouteDef[] = [
  { path: "/", component: LoginPage, access: "guest", title: msg`Sign in` },
  { path: "/login", component: LoginPage, access: "guest", title: msg`Sign in` },
  { path: "/callback", component: CallbackPage, access: "public", title: msg`Sign in` },
  { path: "/dashboard", component: DashboardPage, access: "protected", title: msg`Dashboard` },
  { path: "/reports", component: ReportsListPage, access: "protected", title: msg`Reports` },
  { path: "/report/add", component: ReportEditPage, access: "protected", title: msg`New Report` },
  { path: "/report/edit/:id", component: ReportEditPage, access: "protected", title: msg`Edit Report` },
  { path: "/report/view/testcase/:id", component: ReportViewPage, access: "protected", title: msg`Report` },
  { path: "/report/view/:id", component: ReportViewPage, access: "protected", title: msg`Report` },
  {
    path: "/report/latency/:hour/:bucket/:reportId/:status?/:date?",
    component: LatencyRunsPage,
    access: "protected",
    title: msg`Test Runs`,
  },
  {
    path: "/report/mos/:reportId/:mos/:hour/:date",
    component: MosRunsPage,
    access: "protected",
    title: msg`Test Runs`,
  },
  { path: "/alerts", component: AlertListPage, access: "protected", title: msg`Alerts` },
  // cxwatch's addition: what happened to my alerts since my previous sign-in.
  { path: "/alerts/handover", component: HandoverPage, access: "protected", title: msg`Handover` },
  { path: "/alert/:id", component: AlertDetailPage, access: "protected", title: msg`Alert Details` },
  // cxwatch's addition: incidents, alerts of one outage (hidden on a vendor's API).
  { path: "/incidents", component: IncidentListPage, access: "protected", title: msg`Incidents` },
  { path: "/incident/:id", component: IncidentPage, access: "protected", title: msg`Incident` },
  // Settings lists: the id in the path selects the list (1, 2, 3, 4).
  {
    path: "/settings/alert-settings/:id",
    component: AlertSettingsPage,
    access: "protected",
    title: msg`Alert Settings`,
  },
  {
    path: "/settings/test-case-group/:id",
    component: TestCaseGroupsPage,
    access: "protected",
    title: msg`Test Case Groups`,
  },
  {
    path: "/settings/distribution-list/:id",
    component: DistributionListsPage,
    access: "protected",
    title: msg`Distribution List`,
  },
  { path: "/settings/admin-settings/:id", component: UsersListPage, access: "protected", title: msg`Admin Settings` },
  // cxwatch's addition: maintenance windows, their list and form (id 0 = new).
  {
    path: "/settings/maintenance",
    component: MaintenanceListPage,
    access: "protected",
    title: msg`Maintenance Windows`,
  },
  {
    path: "/settings/maintenance/:id",
    component: MaintenanceEditPage,
    access: "protected",
    title: msg`Maintenance window`,
  },
  // cxwatch's addition: the site page (checklist, keys, channels, audit log).
  { path: "/settings/site", component: SitePage, access: "protected", title: msg`Site` },
  { path: "/users/:id", component: UserEditPage, access: "protected", title: msg`User Profile` },
  {
    path: "/report/distribution/:id",
    component: DistributionEditPage,
    access: "protected",
    title: msg`Distribution List`,
  },
  {
    path: "/report/setting/autojiratickets/:alertSettingId",
    component: AutoTicketsPage,
    access: "protected",
    title: msg`Auto Tickets`,
  },
  { path: "/report/setting/:id", component: AlertSettingEditPage, access: "protected", title: msg`Alert Setting` },
  // The runs behind a number and one run (spec §2; pages/Drill/links.ts builds these).
  {
    path: "/report/drill/:entityId/:status/:periodStart/:periodEnd/:reportId?/:latency?",
    component: DrillPage,
    access: "protected",
    title: msg`Test Runs`,
  },
  { path: "/report/run/:runId/:latency?", component: RunDetailPage, access: "protected", title: msg`Run details` },
];
