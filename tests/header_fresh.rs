//! The committed headers in include/ must match what build.rs generates from the
//! type table (the C compiler wrappers use include/).

#[test]
fn committed_headers_match_the_generated_ones() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    for (name, generated) in rshmem::headers::ALL {
        let committed = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        assert!(
            committed == *generated,
            "include/{name} is stale: run `cargo xtask gen-header` and commit the result"
        );
    }
}
