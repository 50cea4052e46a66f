/** An expected failure of a command (the API refused, or cannot be reached): its message says all, without a stack. */
export class CommandFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandFailure';
  }
}
