// The report screens (spec §2): list, form, views, and the runs behind the latency and MOS cells.
export { ReportEditPage } from "./EditPage";
export { ReportsListPage } from "./ListPage";
export { LatencyRunsPage, MosRunsPage } from "./RunsPage";
export { ReportViewPage } from "./ViewPage";
