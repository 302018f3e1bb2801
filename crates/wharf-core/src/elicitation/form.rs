//! The form model of form-mode elicitation (being written).
