//! Telling the user, once a turn, which tools the model is not offered (the servers listed more than a request
//! takes, and some were cut to their fair share).

use serde_json::json;

use super::{notice, Turn, TurnEntry};
use crate::chat::tools::{ModelTools, ToolsLeftOut};
use crate::conversations::Role;
use crate::events::{HostEvent, NoticeCode};

impl Turn<'_> {
    /// The first time in the turn that a step leaves tools out: a notice stored in the conversation (with what was
    /// left out as its data), then told as an event, and the turn's entry. `told` keeps what was left out then, for
    /// the turn's outcome; later steps tell nothing more.
    pub(super) fn tell_left_out(
        &self,
        told: &mut Vec<ToolsLeftOut>,
        tools: &ModelTools,
    ) -> Option<TurnEntry> {
        if !told.is_empty() {
            return None;
        }
        let message = tools.left_out_message()?;
        told.clone_from(&tools.left_out);
        self.store(
            Role::Notice,
            &message,
            Some(json!({ "toolsLeftOut": told })),
        );
        // After it is stored: a front end that reads the conversation on this event finds it.
        self.cx.events.emit(HostEvent::Notice {
            server: None,
            code: NoticeCode::ToolsLeftOut,
            message: message.clone(),
        });
        Some(notice(message))
    }
}
