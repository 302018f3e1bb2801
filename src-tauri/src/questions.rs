//! The window's side of the question queue (`wharf_core::broker::QuestionQueue`): each question asked and each one
//! answered is told to the dialog host as a Tauri event; the host answers through `answer_input`.

use std::sync::Arc;

use tauri::{AppHandle, Emitter};
use wharf_core::broker::{QuestionQueue, QueueEvent};

/// The event that announces a new request to the dialog host.
pub const INPUT_REQUEST: &str = "input-request";
/// The event that tells the dialog host a request is answered (here or elsewhere) and leaves the queue.
pub const INPUT_RESOLVED: &str = "input-resolved";

/// Shared between the broker (which asks) and the commands (which answer).
pub type SharedQueue = Arc<QuestionQueue>;

pub fn attach(queue: &QuestionQueue, handle: AppHandle) {
    queue.listen(move |event| {
        let (name, sent) = match event {
            QueueEvent::Asked(pending) => (INPUT_REQUEST, handle.emit(INPUT_REQUEST, pending)),
            QueueEvent::Resolved(resolved) => {
                (INPUT_RESOLVED, handle.emit(INPUT_RESOLVED, resolved))
            }
        };
        if let Err(e) = sent {
            tracing::debug!("{name} not delivered to the UI: {e}");
        }
    });
}
