//! Compile-fail tests: each case breaks one rule of the model, and its
//! `.stderr` is the lesson the compiler gives.
#[test]
fn rules_of_the_model_are_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
}
