//! The crate's layout (docs/engines.md, "Crate layout"): the PyO3 layer lives in `src/python/`
//! alone, so the pure core builds, tests and profiles without Python types. A test of the lib
//! (not an integration test): `cargo test --lib` then builds the crate once, not twice.

use std::fs;
use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn only_the_python_directory_uses_pyo3_or_numpy() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 40, "{} files", files.len());
    let python = src.join("python");
    let mut pure = 0;
    for path in files.iter().filter(|p| !p.starts_with(&python)) {
        if path.ends_with("lib.rs") || path.ends_with("layout.rs") {
            continue; // lib.rs declares `pub mod python;`, this file names the words it seeks
        }
        pure += 1;
        let text = fs::read_to_string(path).expect("a source file");
        // code only: the comments may say where the bindings are
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for word in ["pyo3", "numpy::", "crate::python", "#[py"] {
                assert!(
                    !line.contains(word),
                    "{} uses {word}: PyO3 code belongs in src/python/",
                    path.display()
                );
            }
        }
    }
    assert!(pure > 30, "{pure} pure files");
}
