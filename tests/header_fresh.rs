//! The committed generated files (headers in include/, docs/env.md) must match
//! what the crate's tables generate now.

#[test]
fn committed_generated_files_are_fresh() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (name, generated) in rshmem::generated_files() {
        let committed = std::fs::read_to_string(root.join(&name)).unwrap_or_default();
        assert!(
            committed == generated,
            "{name} is stale: run `cargo xtask gen-header` and commit the result"
        );
    }
}
