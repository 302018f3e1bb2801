//! A form as the user is shown it: the flat primitive subset of the spec's `PrimitiveSchemaDefinition` that
//! elicitation reads a server's `requestedSchema` into, which the app renders and the CLI prints in its events.

use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

/// A form: its fields in the server's order (serde_json keeps object order here).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FormSpec {
    pub fields: Vec<FormField>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FormField {
    /// The property name: the key of the answer.
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    pub required: bool,
    /// Pre-filled in the form, and taken when an answer leaves the field out. Always of the field's type; an
    /// integer field's `30.0` is given as `30`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub default: Option<Value>,
    /// The field looks like it asks for a secret, which the spec forbids in a form: the user is warned.
    pub credential: bool,
    #[serde(flatten)]
    pub kind: FieldKind,
}

/// `type` is what the CLI prints for each field (`"string"`, `"number"`...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum FieldKind {
    String {
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        format: Option<StringFormat>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional, type = "number")]
        min_length: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional, type = "number")]
        max_length: Option<u64>,
        /// Not in the spec's `StringSchema`, but in its example, and the Python SDK emits it for constrained
        /// strings: refusing it would decline forms of common servers. The UI's check of it is a courtesy; the
        /// Rust one (`validate`) decides.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        pattern: Option<String>,
    },
    /// `number`, or `integer` when `integer` is true. The exclusive bounds and `multipleOf` are outside the spec's
    /// `NumberSchema` but emitted by the Python SDK (`Field(gt=0)`), so they are modelled rather than refused.
    Number {
        integer: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        minimum: Option<Number>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        maximum: Option<Number>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        exclusive_minimum: Option<Number>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        exclusive_maximum: Option<Number>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        multiple_of: Option<Number>,
    },
    Boolean,
    /// One string among `options`: untitled `enum`, titled `oneOf` of `{const, title}`, or legacy `enumNames`.
    Select {
        options: Vec<Choice>,
    },
    /// A list of distinct strings among `options`: `items.enum`, or titled `items.anyOf` of `{const, title}`.
    MultiSelect {
        options: Vec<Choice>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional, type = "number")]
        min_items: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional, type = "number")]
        max_items: Option<u64>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum StringFormat {
    Email,
    Uri,
    Date,
    DateTime,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Choice {
    /// What is sent.
    pub value: String,
    /// What is shown, when the server gave a label.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
}
