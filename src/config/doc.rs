//! `docs/env.md`, written from the variables' table ([`VARS`],
//! [`TOOL_VARS`]) by `cargo xtask gen-header`.

use super::{Group, Kind, TOOL_VARS, VARS, Var};

/// `docs/env.md`: the variables as Markdown tables by group (written by
/// `cargo xtask gen-header`, checked by `tests/header_fresh.rs`).
pub(crate) fn env_markdown() -> String {
    let mut s = String::from(
        "# Environment variables\n\nGenerated from the table in `src/config/mod.rs`; do not edit. Each variable is read as \
         its name, then under its other names where listed: the deprecated `SMA_<NAME>` (the `SHMEM_` \
         name wins when both are set), and other implementations' names (Open MPI's), which must agree with \
         the `SHMEM_` name when both are set. A malformed value stops `shmem_init` with a message naming the \
         variable and the value; so does a size too large to lay out (within 2 MiB of 2^64), and two names \
         of one setting set to different values. `SHMEM_INFO=1` prints them with the values in effect.\n",
    );
    for g in Group::ALL {
        let rows: Vec<&Var> = VARS.iter().chain(TOOL_VARS).filter(|v| v.group == g).collect();
        if rows.is_empty() {
            continue;
        }
        s.push_str(&format!(
            "\n## {}\n\n| variable | other names | kind | default | meaning |\n|---|---|---|---|---|\n",
            g.title()
        ));
        for v in rows {
            let kind = match v.kind {
                Kind::Flag => "flag (set = on)".to_string(),
                Kind::Switch => "`0` or `1`".to_string(),
                Kind::Size => "size".to_string(),
                Kind::Seconds => "seconds".to_string(),
                Kind::Count => "count".to_string(),
                Kind::Choice(names) => format!("one of `{}`", names.join("`, `")),
                Kind::Path => "file name".to_string(),
                Kind::Command => "command".to_string(),
            };
            let default = if v.default.is_empty() { "unset" } else { v.default };
            let others = other_names(v);
            let others = if others.is_empty() {
                "".to_string()
            } else {
                format!("`{}`", others.join("`, `"))
            };
            s.push_str(&format!(
                "| `{}` | {others} | {kind} | `{default}` | {} |\n",
                v.name, v.help
            ));
        }
    }
    s
}

/// A variable's other names: its `SMA_` alias, then other implementations'.
fn other_names(v: &Var) -> Vec<String> {
    v.sma_name()
        .into_iter()
        .chain(v.also.iter().map(|a| a.to_string()))
        .collect()
}
