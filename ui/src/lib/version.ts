import { version } from "../../package.json";

/** The version line of the console ('v0.1.0'). */
export const VERSION: string = version;
