//! What a view is told when it opens the bridge: who the host is, what it offers, and the context it runs in (theme,
//! locale, time zone, display mode, room). The locale and time zone are the user's, read from the settings the
//! desktop itself reads, once per run.

use std::path::Path;
use std::sync::OnceLock;

use serde_json::{json, Value};

use super::{ViewBridge, APPS_PROTOCOL_VERSION, MAX_HEIGHT};

/// When the user's settings name no locale (or only `C`/`POSIX`), or one that is not a language tag.
const FALLBACK_LOCALE: &str = "en-US";
/// When no time zone is set anywhere, or what is set is not a zone name.
const FALLBACK_TIME_ZONE: &str = "UTC";

impl ViewBridge {
    pub(super) fn initialize_result(&self, params: &Value) -> Value {
        let asked = params.get("protocolVersion").and_then(Value::as_str);
        let version = if asked == Some(APPS_PROTOCOL_VERSION) {
            asked.unwrap_or(APPS_PROTOCOL_VERSION)
        } else {
            APPS_PROTOCOL_VERSION
        };
        let (locale, time_zone) = user_settings();
        json!({
            "protocolVersion": version,
            "hostInfo": host_info(),
            "hostCapabilities": host_capabilities(),
            "hostContext": {
                "theme": self.theme,
                "locale": locale,
                "timeZone": time_zone,
                "displayMode": "inline",
                "availableDisplayModes": ["inline"],
                "platform": "desktop",
                "containerDimensions": {"maxHeight": MAX_HEIGHT},
                "toolInfo": {"tool": self.tool},
            },
        })
    }
}

pub(super) fn host_info() -> Value {
    json!({"name": crate::CLIENT_NAME, "version": crate::CLIENT_VERSION})
}

/// What Wharf offers views: the server's tools and resources (its own only), links through the user's consent, a
/// message to the chat as a draft, context for the model, files saved through the save dialog, logging.
pub(super) fn host_capabilities() -> Value {
    json!({
        "openLinks": {},
        "downloadFile": {},
        "serverTools": {},
        "serverResources": {},
        "logging": {},
        "message": {"text": {}},
        "updateModelContext": {"text": {}, "structuredContent": {}},
    })
}

/// The user's locale and time zone, read once.
fn user_settings() -> (&'static str, &'static str) {
    static SETTINGS: OnceLock<(String, String)> = OnceLock::new();
    let (locale, time_zone) = SETTINGS.get_or_init(|| {
        let var = |name: &str| std::env::var(name).ok();
        let locale = locale_from(&var);
        let time_zone = time_zone_from(
            var("TZ"),
            std::fs::read_to_string("/etc/timezone").ok(),
            std::fs::read_link("/etc/localtime").ok().as_deref(),
        );
        (locale, time_zone)
    });
    (locale, time_zone)
}

/// A BCP 47 language tag from the POSIX locale variables, in the order they take effect (`LC_ALL`, `LC_MESSAGES`,
/// `LANG`): `nb_NO.UTF-8@euro` is `nb-NO`. `C`, `POSIX`, nothing, or what is not a language and region gives
/// `en-US`.
pub(super) fn locale_from(var: &dyn Fn(&str) -> Option<String>) -> String {
    let set = ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .filter_map(|name| var(name))
        .find(|value| !value.is_empty());
    let Some(value) = set else {
        return FALLBACK_LOCALE.into();
    };
    let bare = value.split(['.', '@']).next().unwrap_or_default();
    if matches!(bare, "C" | "POSIX" | "") {
        return FALLBACK_LOCALE.into();
    }
    let mut parts = bare.split('_');
    let language = parts.next().unwrap_or_default();
    let region = parts.next();
    let is_language =
        (2..=3).contains(&language.len()) && language.chars().all(|c| c.is_ascii_lowercase());
    let region_ok =
        region.is_none_or(|r| r.len() == 2 && r.chars().all(|c| c.is_ascii_uppercase()));
    if !is_language || !region_ok || parts.next().is_some() {
        return FALLBACK_LOCALE.into();
    }
    match region {
        Some(region) => format!("{language}-{region}"),
        None => language.to_owned(),
    }
}

/// An IANA time zone name: `TZ` (its leading `:` dropped), else `/etc/timezone`, else where `/etc/localtime` links
/// to under `zoneinfo/`; `UTC` when none names a zone.
pub(super) fn time_zone_from(
    tz: Option<String>,
    etc_timezone: Option<String>,
    localtime_link: Option<&Path>,
) -> String {
    let linked = localtime_link.and_then(|link| {
        let link = link.to_str()?;
        let (_, zone) = link.split_once("zoneinfo/")?;
        Some(zone.to_owned())
    });
    [
        tz.map(|tz| tz.trim_start_matches(':').to_owned()),
        etc_timezone,
        linked,
    ]
    .into_iter()
    .flatten()
    .map(|zone| zone.trim().to_owned())
    .find(|zone| is_zone_name(zone))
    .unwrap_or_else(|| FALLBACK_TIME_ZONE.into())
}

/// `Area/Place` or a bare name like `UTC`: letters, digits, `_`, `+`, `-` and `/`, not a path that climbs.
fn is_zone_name(zone: &str) -> bool {
    !zone.is_empty()
        && zone.len() <= 64
        && !zone.starts_with('/')
        && !zone.split('/').any(|part| part.is_empty() || part == "..")
        && zone
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-' | '/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(set: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            set.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn the_locale_is_the_first_posix_variable_set_as_a_language_tag() {
        assert_eq!(locale_from(&vars(&[("LANG", "nb_NO.UTF-8")])), "nb-NO");
        assert_eq!(
            locale_from(&vars(&[
                ("LANG", "de_DE.UTF-8"),
                ("LC_ALL", "fr_CA.UTF-8@euro")
            ])),
            "fr-CA"
        );
        assert_eq!(
            locale_from(&vars(&[
                ("LC_ALL", ""),
                ("LC_MESSAGES", "ja_JP"),
                ("LANG", "C")
            ])),
            "ja-JP"
        );
        assert_eq!(locale_from(&vars(&[("LANG", "fi")])), "fi");
        for unusable in [
            "C.UTF-8",
            "POSIX",
            "en_US;rm -rf",
            "\u{1b}[31m",
            "english_Britain",
        ] {
            assert_eq!(
                locale_from(&vars(&[("LANG", unusable)])),
                "en-US",
                "{unusable:?}"
            );
        }
        assert_eq!(locale_from(&vars(&[])), "en-US");
    }

    #[test]
    fn the_time_zone_is_tz_else_etc_timezone_else_the_localtime_link() {
        let link = Path::new("/usr/share/zoneinfo/Europe/Oslo");
        assert_eq!(
            time_zone_from(Some(":America/New_York".into()), None, Some(link)),
            "America/New_York"
        );
        assert_eq!(
            time_zone_from(None, Some("Asia/Tokyo\n".into()), Some(link)),
            "Asia/Tokyo"
        );
        assert_eq!(time_zone_from(None, None, Some(link)), "Europe/Oslo");
        assert_eq!(
            time_zone_from(Some("/etc/../../secret".into()), None, None),
            "UTC"
        );
        assert_eq!(
            time_zone_from(Some("Europe/<script>".into()), None, None),
            "UTC"
        );
        assert_eq!(time_zone_from(None, None, None), "UTC");
    }
}
