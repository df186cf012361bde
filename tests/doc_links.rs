//! The repository's Markdown names only files that exist: every relative link
//! (`[text](path#anchor)`, the anchor included) and every file path written as
//! code that starts at a top-level directory of the repository (`src/lock.rs`)
//! or names a Markdown page (`docs/psync.md`). Links to the web are not
//! followed, and paths under `target/` are outputs, not checked.

use std::path::{Path, PathBuf};

/// Top-level directories whose paths, written as code in the docs, must exist.
const TREE_DIRS: &[&str] = &[
    ".ci", "benches", "build", "c_tests", "docs", "examples", "include", "src", "tests", "xtask",
];

/// A reference from a Markdown file: its line and what it names.
#[derive(Debug, PartialEq, Eq)]
enum Ref {
    /// `[text](target)`, relative to the page.
    Link(usize, String),
    /// A path in a code span, relative to the repository root.
    Code(usize, String),
}

/// The links and code-span paths of a Markdown page, outside fenced code blocks.
fn refs(md: &str) -> Vec<Ref> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (n, line) in md.lines().enumerate() {
        let line_no = n + 1;
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Split at backticks: even pieces are prose, odd pieces are code.
        for (k, piece) in line.split('`').enumerate() {
            if k % 2 == 1 {
                if looks_like_tree_path(piece) {
                    out.push(Ref::Code(line_no, piece.to_string()));
                }
                continue;
            }
            let mut rest = piece;
            while let Some(at) = rest.find("](") {
                let after = &rest[at + 2..];
                let Some(end) = after.find(')') else { break };
                let target = after[..end].trim();
                if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
                    out.push(Ref::Link(line_no, target.to_string()));
                }
                rest = &after[end..];
            }
        }
    }
    out
}

/// A path in code worth checking: relative, with a directory and a file
/// name, starting at one of the repository's directories or naming a page.
fn looks_like_tree_path(code: &str) -> bool {
    let plain = code.chars().all(|c| c.is_alphanumeric() || "._-/".contains(c));
    let Some((first, _)) = code.split_once('/') else {
        return false;
    };
    let file = code.rsplit('/').next().unwrap_or("");
    plain && file.contains('.') && (TREE_DIRS.contains(&first) || code.ends_with(".md"))
}

/// GitHub's anchor for a heading: lower case, spaces to hyphens, other
/// punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(md: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#')));
        }
    }
    out
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_str().unwrap();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                markdown_files(&path, out);
            }
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
}

/// What is wrong with one reference from `page`, if anything.
fn broken(root: &Path, page: &Path, r: &Ref) -> Option<String> {
    let (target, bases) = match r {
        Ref::Link(_, t) => (t.as_str(), vec![page.parent().unwrap().to_path_buf()]),
        // Paths in code are written from the root; pages also from their own directory.
        Ref::Code(_, t) => (
            t.as_str(),
            vec![root.to_path_buf(), page.parent().unwrap().to_path_buf()],
        ),
    };
    let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
    let file = if path.is_empty() {
        page.to_path_buf()
    } else {
        match bases.iter().map(|b| b.join(path)).find(|p| p.exists()) {
            Some(p) => p,
            None => return Some(format!("`{path}` does not exist")),
        }
    };
    if !anchor.is_empty() && file.extension().is_some_and(|e| e == "md") {
        let text = std::fs::read_to_string(&file).unwrap();
        if !anchors(&text).iter().any(|a| a == anchor) {
            return Some(format!(
                "`{}` has no heading with anchor `#{anchor}`",
                file.strip_prefix(root).unwrap().display()
            ));
        }
    }
    None
}

#[test]
fn markdown_names_only_files_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = Vec::new();
    markdown_files(root, &mut pages);
    assert!(
        pages.iter().any(|p| p.ends_with("docs/architecture.md")),
        "found no docs"
    );
    let mut failures = Vec::new();
    let mut checked = 0;
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for r in refs(&text) {
            checked += 1;
            if let Some(why) = broken(root, page, &r) {
                let line = match &r {
                    Ref::Link(l, _) | Ref::Code(l, _) => l,
                };
                failures.push(format!("{}:{line}: {why}", page.strip_prefix(root).unwrap().display()));
            }
        }
    }
    println!("{checked} references in {} Markdown files", pages.len());
    assert!(
        failures.is_empty(),
        "dead references in the docs:\n  {}",
        failures.join("\n  ")
    );
}

#[test]
fn refs_reads_links_and_code_paths_outside_code_blocks() {
    let md = "See [the model](docs/a.md#part) and `src/lock.rs`, not `ffi/rma.rs`.\n\
              `f[N](x)` and [web](https://x.org) and `target/out.csv` are skipped.\n\
              ```\n[in a block](nowhere.md) `src/nowhere.rs`\n```\n\
              Also `shared/reference/architecture.md` and [same page](#top).";
    assert_eq!(
        refs(md),
        [
            Ref::Link(1, "docs/a.md#part".into()),
            Ref::Code(1, "src/lock.rs".into()),
            Ref::Code(6, "shared/reference/architecture.md".into()),
            Ref::Link(6, "#top".into()),
        ]
    );
}

#[test]
fn anchors_follow_github_slugs() {
    assert_eq!(slug(" Spaces and teams"), "spaces-and-teams");
    assert_eq!(slug(" Sleeping and waking"), "sleeping-and-waking");
    assert_eq!(
        slug(" `shmem_ptr`: where (and why) it works"),
        "shmem_ptr-where-and-why-it-works"
    );
    assert_eq!(anchors("# A\n```\n# not a heading\n```\n## B c\n"), ["a", "b-c"]);
}

#[test]
fn a_dead_reference_is_reported() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = root.join("docs/architecture.md");
    assert_eq!(broken(root, &page, &Ref::Link(1, "memory-model.md".into())), None);
    assert_eq!(broken(root, &page, &Ref::Code(1, "src/lock.rs".into())), None);
    assert!(broken(root, &page, &Ref::Link(1, "gone.md".into())).is_some());
    assert!(broken(root, &page, &Ref::Code(1, "shared/reference/architecture.md".into())).is_some());
    assert!(broken(root, &page, &Ref::Link(1, "memory-model.md#no-such-heading".into())).is_some());
}
