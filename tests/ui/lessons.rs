//! Compile-fail tests: each other `.rs` file in this folder breaks one rule
//! of the model, and its `.stderr` is the lesson the compiler gives.
#[test]
fn rules_of_the_model_are_compile_errors() {
    let t = trybuild::TestCases::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut lessons: Vec<String> = std::fs::read_dir(dir)
        .expect("the lessons' folder")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".rs") && name != "lessons.rs")
        .collect();
    lessons.sort();
    assert!(lessons.len() > 30, "the lessons are missing: {lessons:?}");
    for lesson in &lessons {
        t.compile_fail(lesson);
    }
}
