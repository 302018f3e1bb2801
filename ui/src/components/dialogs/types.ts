import type { CommandError } from "../../bindings/CommandError";
import type { InputAnswer } from "../../bindings/InputAnswer";
import type { PendingInput } from "../../bindings/PendingInput";

/** What every request dialog gets: the request, and the one way to answer it. `answer` resolves to null once the
 * request is answered, or to the error (a form's `invalid_answer` keeps the request waiting, for the dialog to show
 * the problems next to the fields). */
export interface DialogProps {
  input: PendingInput;
  busy: boolean;
  answer: (answer: InputAnswer) => Promise<CommandError | null>;
}
