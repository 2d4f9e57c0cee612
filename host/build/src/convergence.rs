//! The convergence check: finds, in a PTX module, the instructions whose
//! correctness depends on every thread of a warp (or of a block) executing
//! the *same instruction*, a promise that neither rustc nor LLVM keeps.
//!
//! LLVM may copy a block of code into the two arms of a branch (tail
//! duplication, jump threading), and rustc's MIR passes may do the same
//! before LLVM sees the code. A copied instruction is still executed once
//! by each thread, so every instruction whose contract is "each thread
//! arrives once" stays correct. Those whose contract is "every thread
//! executes this very instruction" do not: after the copy, the threads of
//! one warp may run two different copies, and the block hangs or the result
//! is undefined. The PTX ISA names them:
//!
//! | instruction | why it is refused |
//! |---|---|
//! | `bar.sync`, `bar.red`, `bar.arrive` | the `bar` forms are defined as the `.aligned` `barrier` forms |
//! | `barrier.red` (also without `.aligned`) | a warp split between two copies got a wrong reduction on an H100 (measured) |
//! | any `*.aligned` (`barrier.sync.aligned`, `mma.sync.aligned`, ...) | `.aligned` requires every thread of the warp to execute the same instruction |
//! | `shfl`, `vote` without `.sync` | the pre-Volta forms assume a converged warp |
//!
//! What coop emits instead: `barrier.sync` (non-aligned) for the block
//! barrier, and the `.sync` warp instructions (`shfl.sync`, `vote.sync`,
//! `match.sync`, `redux.sync`, `bar.warp.sync`) with explicit member masks,
//! which on sm_70 and later wait for the threads of the mask to execute *an*
//! instruction of the same kind and mask, not the same one.

use std::fmt;

/// One convergence-dependent instruction in a PTX module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The kernel (`.entry`) or device function (`.func`) that holds it.
    pub function: String,
    /// Whether `function` is a kernel entry point.
    pub is_kernel: bool,
    /// The instruction as written in the PTX (predicate included).
    pub instruction: String,
    /// Its line in the PTX text, from 1.
    pub line: usize,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.is_kernel {
            "kernel"
        } else {
            "device function"
        };
        write!(
            f,
            "{kind} `{}`: `{}` (PTX line {})",
            self.function, self.instruction, self.line,
        )
    }
}

impl Finding {
    /// Why the instruction is refused, and what to use instead.
    pub fn reason(&self) -> &'static str {
        why(opcode(&self.instruction))
    }
}

/// `findings` one a line, then each distinct reason once.
pub fn describe(findings: &[Finding]) -> String {
    let mut text: Vec<String> = findings.iter().map(|f| format!("  {f}")).collect();
    let mut reasons: Vec<&str> = findings.iter().map(Finding::reason).collect();
    reasons.dedup();
    reasons.sort_unstable();
    reasons.dedup();
    text.extend(reasons.iter().map(|r| format!("why: {r}")));
    text.join("\n")
}

/// Every convergence-dependent instruction of `ptx`, in order.
///
/// ```
/// let ptx = "
/// .visible .entry scan(.param .u64 p)
/// {
///     setp.ge.u64 %p1, %rd1, %rd2;
///     @%p1 bra $L__BB0_2;
///     bar.sync 0;
/// $L__BB0_2:
///     barrier.sync 0;
///     ret;
/// }";
/// let found = coop_build::convergence::check(ptx);
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].function, "scan");
/// assert_eq!(found[0].instruction, "bar.sync 0");
/// ```
pub fn check(ptx: &str) -> Vec<Finding> {
    let mut found = Vec::new();
    let mut current: Option<(String, bool)> = None;
    let mut depth = 0usize;
    let mut header: Option<(String, bool)> = None;
    for (i, raw) in ptx.lines().enumerate() {
        let line = raw.split("//").next().unwrap_or("");
        if depth == 0 {
            if let Some(h) = function_header(line) {
                header = Some(h);
            }
        }
        for piece in line.split_inclusive(['{', '}', ';']) {
            let text = piece.trim_end_matches(['{', '}', ';']).trim();
            if depth > 0 && !text.is_empty() {
                if let Some((name, is_kernel)) = &current {
                    let instruction = strip_predicate(text);
                    if dependent(opcode(instruction)) {
                        found.push(Finding {
                            function: name.clone(),
                            is_kernel: *is_kernel,
                            instruction: text.to_string(),
                            line: i + 1,
                        });
                    }
                }
            }
            if piece.ends_with('{') {
                if depth == 0 {
                    current = header.take();
                }
                depth += 1;
            } else if piece.ends_with('}') {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    current = None;
                }
            }
        }
    }
    found
}

/// The name of the function a `.entry` or `.func` header line declares,
/// and whether it is a kernel; `None` for other lines and for `.extern`
/// declarations.
fn function_header(line: &str) -> Option<(String, bool)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.first() == Some(&".extern") {
        return None;
    }
    let at = words.iter().position(|w| *w == ".entry" || *w == ".func")?;
    let is_kernel = words[at] == ".entry";
    // `.func (.param .b32 func_retval0) name(`: the name follows the
    // return parameter's parentheses.
    let rest = words[at + 1..].join(" ");
    let rest = if rest.starts_with('(') {
        rest.split_once(')')?.1.trim_start().to_string()
    } else {
        rest
    };
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.'))
        .collect();
    (!name.is_empty()).then_some((name, is_kernel))
}

/// The instruction without its guard predicate (`@%p1`, `@!p`).
fn strip_predicate(text: &str) -> &str {
    match text.strip_prefix('@') {
        Some(rest) => rest
            .split_once(char::is_whitespace)
            .map_or("", |(_, i)| i.trim_start()),
        None => text,
    }
}

fn opcode(instruction: &str) -> &str {
    strip_predicate(instruction)
        .split_whitespace()
        .next()
        .unwrap_or("")
}

/// Whether `opcode` needs the same instruction in every thread.
fn dependent(opcode: &str) -> bool {
    let parts: Vec<&str> = opcode.split('.').collect();
    match parts.first() {
        Some(&"bar") => parts.get(1) != Some(&"warp"),
        // `barrier.red` even without `.aligned`: measured on an H100, a
        // thread whose warp the compiler had split between two copies got a
        // wrong reduction.
        Some(&"barrier") => parts.contains(&"red") || parts.contains(&"aligned"),
        Some(&"shfl") | Some(&"vote") => !parts.contains(&"sync"),
        _ => parts.contains(&"aligned"),
    }
}

fn why(opcode: &str) -> &'static str {
    if opcode.starts_with("barrier.red") || opcode.starts_with("barrier.cta.red") {
        "`barrier.red` gives a wrong reduction to a warp the compiler split between two copies \
         of it (measured on an H100); use a block reduction (coop's `ThreadBlock::sync_count`, \
         `reduce`)"
    } else if opcode.starts_with("bar.") {
        "`bar` is the `.aligned` barrier: every thread of each warp must execute this very \
         instruction, and the compiler may copy it into two paths; use `barrier.sync` \
         (coop's `ThreadBlock::sync`)"
    } else if opcode.contains(".aligned") {
        "`.aligned` requires every thread of the warp to execute this very instruction, and \
         the compiler may copy it into two paths"
    } else {
        "this pre-Volta form assumes a converged warp; use the `.sync` form with a member \
         mask (coop's tile collectives)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape that hangs a block: the body copied on `i < len`, each
    /// copy with its own aligned barrier, so the threads of a warp that
    /// take different sides wait at different barriers.
    const DUPLICATED_BODY: &str = r#"
.visible .entry block_scans(
	.param .u64 block_scans_param_0
)
{
	.reg .pred 	%p<3>;
// %bb.0:
	setp.ge.u64 	%p1, %rd5, %rd2;
	@%p1 bra 	$L__BB0_2;
	bar.sync 	0;
	bra.uni 	$L__BB0_3;
$L__BB0_2:
	bar.sync 	0;
$L__BB0_3:
	{ .reg .pred p; setp.ne.u32 p, %r1, 0; @p st.shared.u32 [%r2], %r3; }
	ret;
                                        // -- End function
}
.func  (.param .b32 func_retval0) helper(
	.param .b32 helper_param_0
)
{
	vote.ballot.b32 	%r1, %p1;
	@%p2 barrier.sync.aligned 	0;
	ret;
}
"#;

    #[test]
    fn aligned_barriers_in_a_duplicated_body_are_found_with_their_kernel() {
        let found = check(DUPLICATED_BODY);
        let got: Vec<(&str, bool, &str, usize)> = found
            .iter()
            .map(|f| {
                (
                    f.function.as_str(),
                    f.is_kernel,
                    f.instruction.as_str(),
                    f.line,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("block_scans", true, "bar.sync \t0", 10),
                ("block_scans", true, "bar.sync \t0", 13),
                ("helper", false, "vote.ballot.b32 \t%r1, %p1", 23),
                ("helper", false, "@%p2 barrier.sync.aligned \t0", 24),
            ]
        );
        assert_eq!(
            found[0].to_string(),
            "kernel `block_scans`: `bar.sync \t0` (PTX line 10)"
        );
        let all = describe(&found);
        assert_eq!(all.matches("why: ").count(), 3, "{all}");
        assert!(all.contains("use `barrier.sync`"), "{all}");
    }

    #[test]
    fn what_coop_emits_passes() {
        let ptx = "
.visible .entry ok()
{
	barrier.sync 	0;
	bar.warp.sync 	-1;
	shfl.sync.bfly.b32 	%r1, %r2, 1, 31, -1;
	vote.sync.ballot.b32 	%r3, %p1, -1;
	match.any.sync.b32 	%r4, %r5, -1;
	redux.sync.add.s32 	%r6, %r7, -1;
	{ .reg .pred p; setp.ne.u32 p, %r1, 0; @p st.shared.u32 [%r2], %r3; }
	ret;
}";
        assert_eq!(check(ptx), []);
    }

    #[test]
    fn a_non_aligned_barrier_reduction_is_refused_too() {
        let ptx = "
.visible .entry votes()
{
	{ .reg .pred p; setp.ne.u32 p, %r1, 0; barrier.red.popc.u32 %r2, 0, p; }
	ret;
}";
        let found = check(ptx);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].reason().contains("wrong reduction"));
    }

    #[test]
    fn declarations_and_module_text_are_not_functions() {
        let ptx = ".extern .func bar.sync_like(.param .b32 a);\n.shared .align 16 .b8 s[16];\n";
        assert_eq!(check(ptx), []);
    }
}
