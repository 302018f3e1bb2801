import type { InputAnswer } from "../../bindings/InputAnswer";
import type { PendingInput } from "../../bindings/PendingInput";

/** What every request dialog gets: the request, and the one way to answer it. */
export interface DialogProps {
  input: PendingInput;
  busy: boolean;
  answer: (answer: InputAnswer) => void;
}
