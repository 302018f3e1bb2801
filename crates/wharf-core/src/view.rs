//! What the front ends show of a server's answers: typed views made from the JSON the server sent, capped, so the
//! window and the terminal render what they are given and never read a server's JSON themselves.

pub mod catalog;
pub mod content;
pub mod thread;
pub mod tool_form;
pub mod tool_result;

#[cfg(test)]
mod tests;
