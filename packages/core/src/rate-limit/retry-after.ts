/**
 * A wait in words for 429 messages (the exact seconds are in `Retry-After`): "1 second", "45 seconds", "3 minutes".
 *
 * @example
 * retryAfterText(90); // "2 minutes"
 */
export function retryAfterText(seconds: number): string {
  if (seconds < 120) return seconds === 1 ? "1 second" : `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}
