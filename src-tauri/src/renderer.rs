//! Which of WebKitGTK's renderers the window gets, chosen before GTK starts (WebKit reads its environment once, when
//! its first process launches).
//!
//! WebKit's DMABUF renderer hands each frame from the web process to the app as GPU buffers. Where GL is software
//! (Mesa's llvmpipe: Xvfb, a VM or a container without a GPU) those buffers are plain memory that both processes
//! draw into through LLVM-compiled shaders: the window costs about 150 MiB more (PSS) and paints more slowly than
//! with the renderer off (BENCHMARKS.md, sections 5 and 5c). On a real GPU it is the accelerated path, so it stays.
//!
//! "Software GL" is judged from what Mesa itself would judge it by, without starting GL: the variables that force
//! Mesa to software, and whether any DRM render node can be opened (Mesa needs one to drive a GPU, so without one it
//! can only be llvmpipe). A machine with a GPU whose display still renders in software (Xvfb on a GPU host) is not
//! recognised and keeps WebKit's default, which is what it had before this choice existed. A value the user set for
//! the variable is never replaced.

use std::ffi::{OsStr, OsString};
use std::path::Path;

/// WebKitGTK's switch: any value but "0" turns the DMABUF renderer off.
pub const DISABLE_DMABUF: &str = "WEBKIT_DISABLE_DMABUF_RENDERER";

/// What the choice is made from, read before GTK starts.
#[derive(Debug, Default)]
pub struct Probe {
    /// The user's own `WEBKIT_DISABLE_DMABUF_RENDERER`, if set (even empty).
    pub user_value: Option<OsString>,
    /// `LIBGL_ALWAYS_SOFTWARE`: Mesa renders in software when it reads as true.
    pub libgl_always_software: Option<OsString>,
    /// `GALLIUM_DRIVER`: llvmpipe, softpipe and swrast are software.
    pub gallium_driver: Option<OsString>,
    /// Whether a DRM render node (`/dev/dri/renderD*`) opened for reading and writing, as Mesa opens it.
    pub render_node: bool,
}

/// Why GL was judged to be software.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Software {
    LibglAlways,
    GalliumDriver,
    NoRenderNode,
}

impl Software {
    fn reason(self) -> &'static str {
        match self {
            Software::LibglAlways => "LIBGL_ALWAYS_SOFTWARE asks Mesa for software rendering",
            Software::GalliumDriver => "GALLIUM_DRIVER names a software rasterizer",
            Software::NoRenderNode => "no GPU render node can be opened (/dev/dri/renderD*)",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// The user set the variable: their value stands.
    UserSet(String),
    /// GL is software: the DMABUF renderer is turned off.
    DmabufOff(Software),
    /// A GPU is reachable: WebKit's default renderer.
    Default,
}

/// The decision, from its inputs alone.
pub fn decide(probe: &Probe) -> Choice {
    if let Some(value) = &probe.user_value {
        return Choice::UserSet(value.to_string_lossy().into_owned());
    }
    if probe
        .libgl_always_software
        .as_deref()
        .is_some_and(mesa_true)
    {
        return Choice::DmabufOff(Software::LibglAlways);
    }
    if probe.gallium_driver.as_deref().is_some_and(software_driver) {
        return Choice::DmabufOff(Software::GalliumDriver);
    }
    if !probe.render_node {
        return Choice::DmabufOff(Software::NoRenderNode);
    }
    Choice::Default
}

/// Reads the inputs, applies the choice to this process's environment and returns it, to be logged once logging
/// runs. Must run before any other thread starts: changing the environment races with threads reading it.
pub fn choose() -> Choice {
    let probe = Probe {
        user_value: std::env::var_os(DISABLE_DMABUF),
        libgl_always_software: std::env::var_os("LIBGL_ALWAYS_SOFTWARE"),
        gallium_driver: std::env::var_os("GALLIUM_DRIVER"),
        render_node: render_node_opens(Path::new("/dev/dri")),
    };
    let choice = decide(&probe);
    if let Choice::DmabufOff(_) = choice {
        std::env::set_var(DISABLE_DMABUF, "1");
    }
    choice
}

impl Choice {
    pub fn log(&self) {
        match self {
            Choice::UserSet(value) => {
                tracing::info!("webview renderer: {DISABLE_DMABUF}={value:?} as set by the user")
            }
            Choice::DmabufOff(why) => tracing::info!(
                "webview renderer: DMABUF off ({DISABLE_DMABUF}=1): GL is software: {}",
                why.reason()
            ),
            Choice::Default => {
                tracing::info!(
                    "webview renderer: WebKit's default (a GPU render node is reachable)"
                )
            }
        }
    }
}

/// Mesa's reading of a boolean variable: "1", "true", "yes" and "y" are true; anything else is its default, false.
fn mesa_true(value: &OsStr) -> bool {
    let value = value.to_string_lossy();
    ["1", "true", "yes", "y"]
        .iter()
        .any(|t| value.trim().eq_ignore_ascii_case(t))
}

fn software_driver(value: &OsStr) -> bool {
    let value = value.to_string_lossy();
    ["llvmpipe", "softpipe", "swrast"]
        .iter()
        .any(|d| value.trim().eq_ignore_ascii_case(d))
}

/// Whether any `renderD*` node under `dir` opens for reading and writing. Opening is what proves access (a node the
/// user's groups do not allow is no GPU for Mesa either); the file is closed at once.
fn render_node_opens(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        entry.file_name().to_string_lossy().starts_with("renderD")
            && std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(entry.path())
                .is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu() -> Probe {
        Probe {
            render_node: true,
            ..Probe::default()
        }
    }

    #[test]
    fn a_reachable_gpu_keeps_webkits_default() {
        assert_eq!(decide(&gpu()), Choice::Default);
    }

    #[test]
    fn no_render_node_is_software() {
        assert_eq!(
            decide(&Probe::default()),
            Choice::DmabufOff(Software::NoRenderNode)
        );
    }

    #[test]
    fn the_users_value_always_stands() {
        for value in ["0", "1", ""] {
            for render_node in [false, true] {
                let probe = Probe {
                    user_value: Some(value.into()),
                    libgl_always_software: Some("1".into()),
                    render_node,
                    ..Probe::default()
                };
                assert_eq!(decide(&probe), Choice::UserSet(value.into()), "{value:?}");
            }
        }
    }

    #[test]
    fn mesa_variables_forcing_software_are_honoured() {
        for value in ["1", "true", "YES", "y", " 1 "] {
            let probe = Probe {
                libgl_always_software: Some(value.into()),
                ..gpu()
            };
            assert_eq!(
                decide(&probe),
                Choice::DmabufOff(Software::LibglAlways),
                "{value:?}"
            );
        }
        for value in ["0", "false", "", "no"] {
            let probe = Probe {
                libgl_always_software: Some(value.into()),
                ..gpu()
            };
            assert_eq!(decide(&probe), Choice::Default, "{value:?}");
        }
        for driver in ["llvmpipe", "softpipe", "swrast"] {
            let probe = Probe {
                gallium_driver: Some(driver.into()),
                ..gpu()
            };
            assert_eq!(decide(&probe), Choice::DmabufOff(Software::GalliumDriver));
        }
        let probe = Probe {
            gallium_driver: Some("radeonsi".into()),
            ..gpu()
        };
        assert_eq!(decide(&probe), Choice::Default);
    }

    #[test]
    fn render_nodes_are_found_only_when_they_open() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert!(!render_node_opens(&dir.path().join("absent")));
        assert!(!render_node_opens(dir.path()));
        std::fs::write(dir.path().join("card0"), b"").expect("card0");
        assert!(
            !render_node_opens(dir.path()),
            "a card node is not a render node"
        );
        std::fs::write(dir.path().join("renderD128"), b"").expect("renderD128");
        assert!(render_node_opens(dir.path()));
    }
}
