/** A mistake in a command's arguments: one line, exit status 2. */
export class UsageError extends Error {}
