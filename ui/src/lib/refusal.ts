// Why an item could not be loaded, from the failure (pure): it does not exist (404), it is not
// the caller's to see (403), or the call failed for another reason. A failure is read by its
// shape (the API client's ApiError has `status` and `messages`): lib imports nothing above it.

export type Refusal = "missing" | "hidden" | "failed";

interface Failure {
  status?: unknown;
  messages?: unknown;
}

export function refusalOf(error: unknown): Refusal {
  const status = error && typeof error === "object" ? (error as Failure).status : undefined;
  if (status === 404) return "missing";
  if (status === 403) return "hidden";
  return "failed";
}

/** The failure's first message (the API client words it in the console's language), if any. */
export function reasonOf(error: unknown): string | undefined {
  const messages = error && typeof error === "object" ? (error as Failure).messages : undefined;
  if (!Array.isArray(messages)) return undefined;
  const first = messages.find((m) => typeof m === "string" && m.trim() !== "");
  return typeof first === "string" ? first : undefined;
}
