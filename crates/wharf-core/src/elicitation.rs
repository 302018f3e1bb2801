//! Elicitation: a server asks the user for information in the middle of a request, either through a form Wharf
//! renders (`form`) or by sending the user to a web page in the system browser (`url_check` reviews the URL first).

pub mod form;
pub mod url_check;
