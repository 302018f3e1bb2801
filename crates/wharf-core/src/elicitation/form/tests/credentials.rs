use super::*;

fn assert_table(table: &[(&str, bool)], detect: fn(&str) -> bool) {
    let wrong: Vec<String> = table
        .iter()
        .filter(|(text, expected)| detect(text) != *expected)
        .map(|(text, expected)| format!("{text:?} should be {expected}"))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

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
    assert_table(table, looks_like_credential);
}

/// Names a hostile server could give a secret field to dodge a plain word match: other spellings and
/// abbreviations, separators and case, digits and symbols for letters, look-alike letters of other scripts,
/// compatibility forms and invisible characters.
#[test]
fn dodged_spellings_are_still_credentials() {
    let table: &[(&str, bool)] = &[
        ("pass", true),
        ("db_pass", true),
        ("PASS", true),
        ("pass_word", true),
        ("Pass Word", true),
        ("PaSs-WoRd", true),
        ("PaSsWoRd", true),
        ("pAsSwOrD", true),
        ("p.a.s.s.w.o.r.d", true),
        ("p a s s w o r d", true),
        ("pass-phrase", true),
        ("passw0rd", true),
        ("p@ssword", true),
        ("pa$$word", true),
        ("p@$$w0rd", true),
        ("P4SSW0RD", true),
        ("pa55word", true),
        ("pa55", true),
        ("p4ssword1", true),
        ("s3cr3t", true),
        ("t0k3n", true),
        ("7oken", true),
        ("p1n", true),
        ("P.I.N.", true),
        ("O.T.P", true),
        ("ToKeN", true),
        ("PiN", true),
        ("tok_en", true),
        ("api_k3y", true),
        // Found by the fuzz target: digits alone between separators, a suffix after a split, a look-alike that
        // NFKC would turn into another letter (the lunate sigma).
        ("pa-5-sword", true),
        ("priv-473-key", true),
        ("pa5-sword2", true),
        ("passϲode", true),
        ("ΚΕΥ-ΑΡΙ", false),
        ("κey_αpi", false),
        ("αpi_κey", true),
        // Cyrillic р, а, о in Latin words; a Greek Ρ, Ι, Ν; Cyrillic Т, О, К, Е with a Latin N.
        ("раssword", true),
        ("pаsswоrd", true),
        ("ΡΙΝ", true),
        ("ТОКЕN", true),
        ("sеcrеt", true),
        ("ᴘᴀꜱꜱᴡᴏʀᴅ", true),
        ("ｐａｓｓｗｏｒｄ", true),
        ("ＰＩＮ", true),
        ("𝐩𝐚𝐬𝐬𝐰𝐨𝐫𝐝", true),
        ("𝚝𝚘𝚔𝚎𝚗", true),
        ("ⓟⓐⓢⓢⓦⓞⓡⓓ", true),
        ("🅿🅸🅽", true),
        ("pass\u{200D}word", true),
        ("pa\u{200B}ss\u{200C}wo\u{2060}rd", true),
        ("p\u{AD}i\u{AD}n", true),
        ("to\u{FEFF}ken", true),
        ("pass\u{202E}word\u{202C}", true),
        ("se\u{2066}cr\u{2069}et", true),
        ("t\u{FE0F}oken", true),
        ("pässwörd", true),
        (
            "p\u{336}a\u{336}s\u{336}s\u{336}w\u{336}o\u{336}r\u{336}d\u{336}",
            true,
        ),
        ("bearer", true),
        ("Bearer", true),
        ("Authorization", true),
        ("authorization_header", true),
        ("jwt", true),
        ("JWT", true),
        ("card_no", true),
        ("cardNo", true),
        ("ccnum", true),
        ("cc_num", true),
        ("PAN", true),
        ("pan", true),
        ("card_pan", true),
        ("cardPAN", true),
        ("pan_number", true),
        ("seed_phrase", true),
        ("seedPhrase", true),
        ("mnemonic", true),
        ("recovery phrase", true),
        ("secret recovery phrase", true),
        ("recovery_words", true),
        ("private key", true),
        ("signing_key", true),
        ("credentials", true),
        ("verification_code", true),
        ("2fa_code", true),
        ("backup codes", true),
    ];
    assert_table(table, looks_like_credential);
}

/// The common languages, as a native writer would put them (and without their accents).
#[test]
fn credentials_in_other_languages() {
    let table: &[(&str, bool)] = &[
        ("Passwort", true),
        ("Datenbankpasswort", true),
        ("Paßwort", true),
        ("Kennwort", true),
        ("Geheimzahl", true),
        ("Kartennummer", true),
        ("mot de passe", true),
        ("Mot-de-passe", true),
        ("mot_de_passe", true),
        ("motdepasse", true),
        ("Votre mot de passe", true),
        ("mdp", true),
        ("code secret", true),
        ("numéro de carte", true),
        ("contraseña", true),
        ("contrasena", true),
        ("Contraseña actual", true),
        ("clave", true),
        ("clave de acceso", true),
        ("número de tarjeta", true),
        ("senha", true),
        ("Senhas", true),
        ("palavra-passe", true),
        ("número do cartão", true),
        ("parola d'ordine", true),
        ("codice segreto", true),
        ("wachtwoord", true),
        ("pincode", true),
        ("пароль", true),
        ("Пароль", true),
        ("ПАРОЛЯ", true),
        ("Введите пароль", true),
        ("ПИН-код", true),
        ("номер карты", true),
        ("гасло", true),
        ("Пін", true),
        ("hasło", true),
        ("haslo", true),
        ("Hasła", true),
        ("numer karty", true),
        ("şifre", true),
        ("Şifreniz", true),
        ("sifre", true),
        ("parola", true),
        ("lösenord", true),
        ("passord", true),
        ("salasana", true),
        ("jelszó", true),
        ("heslo", true),
        ("kata sandi", true),
        ("mật khẩu", true),
        ("κωδικός πρόσβασης", true),
        ("密码", true),
        ("新密码", true),
        ("密碼", true),
        ("口令", true),
        ("支付密码", true),
        ("验证码", true),
        ("密 码", true),
        ("パスワード", true),
        ("ﾊﾟｽﾜｰﾄﾞ", true),
        ("パス\u{200B}ワード", true),
        ("暗証番号", true),
        ("PINコード", true),
        ("비밀번호", true),
        ("새 비밀번호", true),
        ("암호", true),
        ("암호를", true),
        ("كلمة المرور", true),
        ("وكلمة المرور", true),
        ("كلمـــة المرور", true),
        ("كلمة السر", true),
        ("पासवर्ड", true),
        ("סיסמה", true),
        ("รหัสผ่าน", true),
    ];
    assert_table(table, looks_like_credential);
}

/// What the normal form, the readings and the new words must not turn into a credential.
#[test]
fn no_false_alarms_from_the_new_readings_and_words() {
    let table: &[(&str, bool)] = &[
        // `pass` in its other senses; words that contain it.
        ("pass_count", false),
        ("pass_rate", false),
        ("boarding_pass", false),
        ("Season pass", false),
        ("pass/fail", false),
        ("first pass", false),
        ("passes", false),
        ("bypass", false),
        ("bypass words", false),
        ("passenger", false),
        ("passport", false),
        ("compass", false),
        ("passive", false),
        // `pan` the pan, the camera move, the Polish "Mr".
        ("frying pan", false),
        ("pan_tilt", false),
        ("panAngle", false),
        ("Pan Kowalski", false),
        ("company", false),
        ("panel", false),
        ("span", false),
        ("PANEL", false),
        ("PAN ID", false),
        ("pan_speed", false),
        // Other senses of the new words.
        ("authorization_server", false),
        ("authorization_url", false),
        ("credential_type", false),
        ("credentials_file", false),
        ("palabra clave", false),
        ("palabras_clave", false),
        ("clave primaria", false),
        ("parola chiave", false),
        ("secretary", false),
        ("секретарь", false),
        ("токенизатор", false),
        ("resenha", false),
        ("암호화", false),
        ("암호화폐 지갑", false),
        ("암호학", false),
        // Digits in ordinary names are no leetspeak.
        ("ipv4", false),
        ("sha256", false),
        ("md5", false),
        ("base64", false),
        ("utf8", false),
        ("x509", false),
        ("s3_bucket", false),
        ("h264", false),
        ("k8s", false),
        ("v1_endpoint", false),
        ("top10", false),
        ("p95_latency", false),
        ("ec2_instance", false),
        ("3d_model", false),
        ("mp3", false),
        ("l10n", false),
        ("i18n", false),
        ("a11y", false),
        ("log4j", false),
        ("web3", false),
        ("401k", false),
        ("user@example.com", false),
        ("price in $", false),
        // Letters left over by a turn of case or dropped digits are not spelled out (`o`, `t`, `p`).
        ("n-o-t3 ρ\u{FE0F}ҺO\u{2066}\u{2069}N3/", false),
        // Words of other scripts that are no secret.
        ("имя пользователя", false),
        ("用户名", false),
        ("ユーザー名", false),
        ("사용자 이름", false),
        ("اسم المستخدم", false),
        ("Benutzername", false),
        ("nom d'utilisateur", false),
    ];
    assert_table(table, looks_like_credential);
}

/// A negation in a description takes back only what it governs; assurances and unrelated negations do not.
#[test]
fn negations_in_descriptions_govern_only_what_they_are_about() {
    let table: &[(&str, bool)] = &[
        ("Enter your password, we never share it", true),
        ("Enter your password. We never share it.", true),
        ("Your password (we will never share it with anyone)", true),
        ("Your password is not stored", true),
        ("We never store your password", true),
        ("Don't worry, enter your password", true),
        ("No account? Enter your password anyway", true),
        ("Do not give us your email, but your PIN", true),
        ("Don't include spaces, enter your PIN", true),
        ("Never mind the form. Your IBAN, please", true),
        ("Your PIN, not your password", true),
        ("Your card no and PIN", true),
        ("Nothing else: your password", true),
        ("No spaces. Type your API key", true),
        ("Do not hesitate: give us your password", true),
        ("Your bank card's PAN", true),
        ("Your 12-word recovery phrase", true),
        ("Enter your p.a.s.s.w.o.r.d here", true),
        ("Ihr Passwort", true),
        ("Votre mot de passe, s'il vous plaît", true),
        ("请输入密码", true),
        ("パスワードを入力してください", true),
        // A negation is not read in other languages or scripts: the field is flagged.
        ("请勿输入密码", true),
        ("Do not enter your password here", false),
        ("Don't type your password into this form", false),
        ("No password needed", false),
        ("Not your password: your user name", false),
        ("We will never ask you for your password", false),
        ("This is not for passwords", false),
        ("Please never enter a PIN", false),
        ("Without a token", false),
        ("Avoid using your password", false),
        (
            "Your favorite integer (do not give us your phone number, pin, or other sensitive info)",
            false,
        ),
        // Words that count in a label only, or only in capitals.
        ("Values to pass to the tool", false),
        ("The authorization server's address", false),
        ("A mnemonic name for the profile", false),
        ("A cast-iron pan", false),
        ("How far to pan the camera", false),
        ("The palabra clave to search for", false),
        ("Maximum tokens to generate", false),
        ("", false),
    ];
    assert_table(table, description_asks_for_credential);
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

/// A negation in the description never hides a field whose name, title or schema says it is a secret; the schema's
/// own hints (`format: "password"` as Pydantic writes a `SecretStr`, `writeOnly: true`) flag the field, and such a
/// form is shown with its warning rather than declined.
#[test]
fn names_titles_and_schema_hints_outweigh_a_negation() {
    let never = "Do not enter your password here; we never share it";
    let schema = form(
        json!({
            "pw": {"type": "string", "description": never},
            "v": {"type": "string", "title": "Passwort", "description": never},
            "secret": {"type": "string", "format": "password", "writeOnly": true},
            "s": {"type": "string", "format": "password", "description": never},
            "w": {"type": "string", "writeOnly": true, "description": "Anything you like"},
            "n": {"type": "integer", "writeOnly": true},
            "note": {"type": "string", "description": never},
            "shown": {"type": "string", "writeOnly": false},
        }),
        &[],
    );
    let spec = parse(&schema);
    assert_eq!(
        credential_warnings(&spec),
        [
            "credential_field:pw",
            "credential_field:v",
            "credential_field:secret",
            "credential_field:s",
            "credential_field:w",
            "credential_field:n",
        ]
    );
    // The secret's format is no format Wharf checks: the field is plain text, and an answer goes out as typed.
    assert_eq!(spec.fields[2].kind, string_kind(None, None, None));
    assert!(problems(&schema, json!({"secret": "hunter2"})).is_empty());
    // A format that names no secret is still out of the subset.
    let unknown = out_of_subset(form(
        json!({"ip": {"type": "string", "format": "ipv4"}}),
        &[],
    ));
    assert!(unknown.reason.contains("unknown format"), "{unknown:?}");
}

/// `pan` alone names a card's number only where a card's number can go: a text field.
#[test]
fn a_numeric_pan_is_a_camera_move() {
    let schema = form(
        json!({
            "pan": {"type": "string"},
            "camera": {"type": "number", "title": "Pan"},
            "tilt": {"type": "integer", "title": "pan"},
            "card": {"type": "integer", "title": "Card PAN"},
        }),
        &[],
    );
    let spec = parse(&schema);
    assert_eq!(
        credential_warnings(&spec),
        ["credential_field:pan", "credential_field:card"]
    );
}

/// A server cannot make the host read megabytes per field: past a length the text is flagged unread, and a text
/// just under it, however hostile, is read quickly.
#[test]
fn long_texts_are_flagged_unread() {
    let padded = format!("{} your name", "a ".repeat(20_000));
    assert!(looks_like_credential(&padded));
    assert!(description_asks_for_credential(&padded));
    assert!(!looks_like_credential(&padded[32_000..]));
    let hostile = [
        "p4 s5 1a 0b 3c 7d ".repeat(500),
        "раѕѕ wоrd ".repeat(900),
        "do not give ".repeat(800),
        "密文码字".repeat(2_400),
        "a.".repeat(4_900),
        "$".repeat(9_900),
    ];
    let started = std::time::Instant::now();
    for text in &hostile {
        assert!(text.chars().count() < 10_000);
        let _ = looks_like_credential(text);
        let _ = description_asks_for_credential(text);
    }
    // Generous for an unoptimised build on a busy machine; the quadratic reading this guards against took minutes.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}
