//! The man pages, made from the command line's own definitions: `cxwatch(1)` with the sections
//! an administrator looks for beside the options (exit status, files, environment), and one
//! `cxwatch-<subcommand>(1)` page per subcommand, which `cxwatch(1)` names.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::CommandFactory;

use super::{Cli, EX_CONFIG};

/// Writes every page into `dir` (made when missing) and returns their paths, `cxwatch.1` first.
pub fn write_all(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut written = vec![write_main(&cmd, dir)?];
    for sub in visible(&cmd) {
        subcommand_pages(sub, dir, &mut written)?;
    }
    Ok(written)
}

fn visible(cmd: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    cmd.get_subcommands().filter(|s| !s.is_hide_set())
}

/// A subcommand's page, then its own subcommands' (`cxwatch-user-add(1)`...), as its page
/// names them.
fn subcommand_pages(
    cmd: &clap::Command,
    dir: &Path,
    written: &mut Vec<PathBuf>,
) -> std::io::Result<()> {
    let man = clap_mangen::Man::new(cmd.clone());
    let path = dir.join(man.get_filename());
    let mut out = std::fs::File::create(&path)?;
    man.render(&mut out)?;
    out.write_all(SEE_ALSO_MAIN.as_bytes())?;
    written.push(path);
    for sub in visible(cmd) {
        subcommand_pages(sub, dir, written)?;
    }
    Ok(())
}

fn write_main(cmd: &clap::Command, dir: &Path) -> std::io::Result<PathBuf> {
    let man = clap_mangen::Man::new(cmd.clone());
    let path = dir.join(man.get_filename());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    man.render_subcommands_section(&mut out)?;
    out.write_all(main_sections().as_bytes())?;
    man.render_version_section(&mut out)?;
    std::fs::write(&path, out)?;
    Ok(path)
}

const SEE_ALSO_MAIN: &str = ".SH \"SEE ALSO\"\n\\fBcxwatch\\fR(1)\n";

/// EXIT STATUS, FILES, ENVIRONMENT and SEE ALSO of `cxwatch(1)`, in roff.
fn main_sections() -> String {
    format!(
        r#".SH "EXIT STATUS"
.TP
\fB0\fR
Success; \fBserve\fR after SIGTERM, once open requests have finished (10 s at most).
.TP
\fB1\fR
Failure: the server did not answer (\fBhealthcheck\fR), a backup or restore was refused, a store
copy's counts differ, or another error, named on standard error.
.TP
\fB2\fR
A command-line error (an unknown option or subcommand, a missing value).
.TP
\fB{EX_CONFIG}\fR
A configuration error (EX_CONFIG): an unknown key, a bad value, an unreadable certificate; the
line names the key. The systemd unit does not restart on it (\fBRestartPreventExitStatus={EX_CONFIG}\fR);
\fBcxwatch config check\fR says the same before a restart.
.SH FILES
.TP
\fI/etc/cxwatch/config.toml\fR
The configuration, read when it exists and no \fB\-\-config\fR is given; root:cxwatch, mode 0640.
.TP
\fI/var/lib/cxwatch\fR
The data directory (\fBdata_dir\fR): the SQLite database \fIcxwatch.db\fR, the generated TLS
certificate and key, the recordings. Kept when the package is purged.
.TP
\fI/usr/lib/systemd/system/cxwatch.service\fR
The systemd unit; \fIjournalctl \-u cxwatch\fR shows the log.
.TP
\fI/usr/share/doc/cxwatch/\fR
The operator's documentation (\fIbackup.md\fR, \fIingest.md\fR, \fIpostgres.md\fR,
\fIsso.md\fR, \fImetrics.md\fR, \fIproxy.md\fR, \fIalerting.md\fR, \fIapi*.md\fR),
\fIconfig.example.toml\fR with every key, the software bills of materials
\fIcxwatch.cdx.json\fR and \fIcxwatch-ui.cdx.json\fR (CycloneDX) and \fIREADME.md\fR.
.SH ENVIRONMENT
.TP
\fBCXWATCH_\fR\fIKEY\fR
Any configuration key, \fB__\fR between nested keys: \fBCXWATCH_SERVER__LISTEN=0.0.0.0:443\fR,
\fBCXWATCH_DATA_DIR=/srv/cxwatch\fR. Overrides the file; the command line overrides it.
An unknown \fBCXWATCH_\fR variable is refused like an unknown key.
.TP
\fBCXWATCH_\fR\fIKEY\fR\fB_FILE\fR
The key's value read from a file (secrets: \fBCXWATCH_STORE__PASSWORD_FILE=/run/secrets/pg\fR).
.TP
\fBCXWATCH_LOG\fR
The log filter (\fBinfo\fR, \fBdebug\fR, \fBcxwatch=debug,poem=info\fR); overrides \fBlog.level\fR.
.TP
\fBNOTIFY_SOCKET\fR
Set by systemd (\fBType=notify\fR): \fBserve\fR sends READY=1 once it listens and STOPPING=1 on SIGTERM.
.SH "SEE ALSO"
\fBsystemctl\fR(1), \fBjournalctl\fR(1),
\fI/usr/share/doc/cxwatch/README.md\fR
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every page the pages name (`cxwatch-user(1)`...) is one that is written, and every
    /// written page but the main one is named by another.
    #[test]
    fn every_page_named_is_written() {
        let dir = std::env::temp_dir().join(format!("cxwatch-man-{}", std::process::id()));
        let pages = write_all(&dir).unwrap();
        let names: Vec<String> = pages
            .iter()
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names[0], "cxwatch");
        let mut named = std::collections::BTreeSet::new();
        for page in &pages {
            let text = std::fs::read_to_string(page).unwrap();
            // clap_mangen writes a name as `cxwatch\-user\-add(1)`.
            for (i, _) in text.match_indices("(1)") {
                let start = text[..i]
                    .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '\\'))
                    .map_or(0, |s| s + 1);
                let name = text[start..i].replace('\\', "");
                if name.starts_with("cxwatch") {
                    named.insert(name);
                }
            }
        }
        for name in &named {
            assert!(names.contains(name), "{name}(1) is named but not written");
        }
        for name in &names[1..] {
            assert!(
                named.contains(name),
                "{name}(1) is written but named nowhere"
            );
        }
        assert!(names.contains(&"cxwatch-user-add".to_string()), "{names:?}");
        let main = std::fs::read_to_string(&pages[0]).unwrap();
        for section in ["EXIT STATUS", "FILES", "ENVIRONMENT", "OPTIONS"] {
            assert!(
                main.contains(&format!(".SH \"{section}\""))
                    || main.contains(&format!(".SH {section}")),
                "no {section}"
            );
        }
        assert!(main.contains("\\fB78\\fR"), "exit status 78");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
