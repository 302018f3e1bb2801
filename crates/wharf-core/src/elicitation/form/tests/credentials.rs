use super::*;

#[test]
fn credential_words() {
    let table: &[(&str, bool)] = &[
        ("password", true),
        ("new_password", true),
        ("dbpassword", true),
        ("pw", true),
        ("db_pwd", true),
        ("Passphrase", true),
        ("passcode", true),
        ("PIN", true),
        ("pin_code", true),
        ("pinCode", true),
        ("auth_token", true),
        ("accessToken", true),
        ("GITHUB_TOKEN", true),
        ("apiKey", true),
        ("api_key", true),
        ("API-KEY", true),
        ("apikey", true),
        ("APIKey", true),
        ("x-api-keys", true),
        ("client_secret", true),
        ("clientSecret", true),
        ("secret_key", true),
        ("privateKey", true),
        ("private-key", true),
        ("aws_access_key_id", true),
        ("cardNumber", true),
        ("credit_card", true),
        ("creditcard", true),
        ("cc_number", true),
        ("CVV", true),
        ("cvv2", true),
        ("cvc", true),
        ("security_code", true),
        ("iban", true),
        ("SSN", true),
        ("social_security_number", true),
        ("otp", true),
        ("one-time code", true),
        ("OneTimeCode", true),
        ("Your API key", true),
        ("Enter the password for the database", true),
        ("tokenizer_model", false),
        ("keyboard_layout", false),
        ("pinned", false),
        ("secretary_name", false),
        ("max_tokens", false),
        ("token_count", false),
        ("maxToken", false),
        ("Token budget", false),
        ("map_pins", false),
        ("spinner", false),
        ("opinion", false),
        ("username", false),
        ("email", false),
        ("sort_key", false),
        ("public_key", false),
        ("monkey", false),
        ("card_title", false),
        ("security_level", false),
        ("passage", false),
        ("cvvalue", false),
        ("accessKeyboard", false),
        ("api_version", false),
        ("one_time", false),
        ("upward", false),
        ("pwd", true),
        ("", false),
    ];
    assert!(table.len() >= 25);
    for (text, expected) in table {
        assert_eq!(looks_like_credential(text), *expected, "{text:?}");
    }
}

#[test]
fn credential_fields_are_flagged_by_name_title_or_description() {
    let schema = form(
        json!({
            "pw": {"type": "string"},
            "k": {"type": "string", "title": "API key"},
            "c": {"type": "string", "description": "The one-time code we texted you"},
            "name": {"type": "string", "title": "Your name"},
            // server-everything's own wording: a description that says NOT to give a secret asks for none.
            "integer": {"type": "integer", "description": "Your favorite integer (do not give us your phone number, pin, or other sensitive info)"},
            "bank": {"type": "string", "description": "Never mind the form. Your IBAN, please"},
        }),
        &[],
    );
    let spec = parse(&schema);
    let flags: Vec<_> = spec.fields.iter().map(|f| f.credential).collect();
    assert_eq!(flags, [true, true, true, false, false, true]);
    assert_eq!(
        credential_warnings(&spec),
        [
            "credential_field:pw",
            "credential_field:k",
            "credential_field:c",
            "credential_field:bank"
        ]
    );
}
