//! The English names of secrets (and the abbreviations and loanwords other languages use too).

use super::terms::{inside, words, Term};

/// Words of quantity: `token` beside one is about language models ("max tokens", "token budget").
const QUANTITY: &[&str] = &[
    "count", "limit", "max", "min", "maximum", "minimum", "budget", "usage", "length", "number",
    "total",
];

/// Words that make `pass` another pass: a ticket, a run of a program, a test result.
const OTHER_PASSES: &[&str] = &[
    "count", "counts", "limit", "max", "min", "number", "total", "rate", "fail", "failed", "ratio",
    "boarding", "season", "bus", "ski", "day", "train", "rail", "transit", "travel", "event",
    "guest", "visitor", "hall", "first", "second", "third", "last", "next", "final", "single",
    "multi", "render", "compile", "build", "test", "type", "kind", "holder", "mountain", "through",
];

/// Words that make `credential` a kind or a place rather than the secret itself.
const CREDENTIAL_METADATA: &[&str] = &[
    "type", "kind", "file", "path", "name", "id", "provider", "store", "source", "helper", "expiry",
];

/// Words that make `authorization` a place or a process rather than the header's value.
const AUTHORIZATION_METADATA: &[&str] = &[
    "server", "servers", "url", "uri", "endpoint", "scope", "scopes", "type", "method", "status",
    "flow", "required",
];

pub(super) const TERMS: &[Term] = &[
    // Passwords. No innocent word contains these, so they count inside words (`dbpassword`, `newpasscode`).
    inside("password"),
    inside("passwd"),
    inside("passphrase"),
    inside("passcode"),
    words("pw"),
    words("pwd"),
    words("pass")
        .singular()
        .label_only()
        .not_beside(OTHER_PASSES),
    // PINs and one-time codes. `pins` are a map's.
    words("pin").singular(),
    words("pin code"),
    words("otp"),
    words("totp"),
    words("hotp"),
    words("one time code"),
    words("one time pin"),
    words("verification code"),
    words("auth code"),
    words("mfa code"),
    words("2fa code"),
    words("access code"),
    words("security code"),
    words("recovery code"),
    words("backup code"),
    // Tokens and keys. A lone `key` is no secret (`sort key`, `public key`).
    words("token").singular().not_beside(QUANTITY),
    words("secret"),
    words("bearer"),
    words("jwt"),
    words("authorization")
        .label_only()
        .not_beside(AUTHORIZATION_METADATA),
    words("authorization header"),
    words("auth header"),
    words("session cookie"),
    words("auth cookie"),
    words("api key"),
    words("private key"),
    words("access key"),
    words("signing key"),
    words("encryption key"),
    words("master key"),
    words("recovery key"),
    words("credential").not_beside(CREDENTIAL_METADATA),
    // Wallets.
    words("seed phrase"),
    words("seed words"),
    words("recovery phrase"),
    words("recovery words"),
    words("recovery seed"),
    words("wallet seed"),
    words("mnemonic").label_only(),
    words("mnemonic phrase"),
    words("mnemonic words"),
    words("mnemonic seed"),
    // Cards and accounts.
    words("card number"),
    words("card no"),
    words("card num"),
    words("card nr"),
    words("cc number"),
    words("cc num"),
    words("cc no"),
    words("credit card"),
    inside("creditcard"),
    words("debit card"),
    words("pan").singular().pan(),
    words("primary account number"),
    words("cvv"),
    words("cvc"),
    words("cvn"),
    words("iban"),
    words("ssn"),
    words("social security number"),
];
