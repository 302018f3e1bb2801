//! Telling the user, once a turn, which tools the model is not offered: none when the model takes no tools, or
//! some when the servers listed more than a request takes and some were cut to their fair share.

use super::{notice, Turn, TurnEntry};
use crate::chat::tools::ModelTools;
use crate::conversations::message::{LeftOutNotice, ToolsLeftOut};
use crate::conversations::{MessageData, Role};
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
        let left_out = LeftOutNotice {
            tools_left_out: told.clone(),
        };
        self.store(
            Role::Notice,
            &message,
            Some(MessageData::ToolsLeftOut(left_out)),
        );
        // After it is stored: a front end that reads the conversation on this event finds it.
        self.cx.events.emit(HostEvent::Notice {
            server: None,
            code: NoticeCode::ToolsLeftOut,
            message: message.clone(),
        });
        Some(notice(message))
    }

    /// When the model takes no tools (`chat.tools` is false): a notice stored, told as an event, and the turn's
    /// entry, saying that the servers' tools are not offered and how to change it.
    pub(super) fn tell_no_tools(&self) -> Option<TurnEntry> {
        if self.cx.settings.tools {
            return None;
        }
        let message = format!(
            "The servers' tools are not offered: the model {} takes no tools (\"chat\": {{\"tools\": false}}, set \
             when it was chosen because its runtime said so). Choose a model that takes tools to let it use them.",
            crate::display_text::name::quoted(&self.cx.settings.provider.model)
        );
        self.store(Role::Notice, &message, None);
        self.cx.events.emit(HostEvent::Notice {
            server: None,
            code: NoticeCode::ToolsNotOffered,
            message: message.clone(),
        });
        Some(notice(message))
    }
}
