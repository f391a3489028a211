// Counts shown beside navigation entries (the open alert events beside Alerts), set by the app
// from the API and read by the side navigation and the phone footer.
import { createStore } from "./store";

export const navBadges = createStore<Partial<Record<string, number>>>({});
