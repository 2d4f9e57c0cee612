//! Symbols and source lines of code addresses in the running program, read
//! from the program's own file (Linux, 64-bit little-endian ELF) with as
//! little of it touched as a diagnosis needs: the file is mapped, not read;
//! a lookup reads the symbol table, the address ranges of the compilation
//! units (`.debug_aranges`) and the line table of the one unit the address
//! falls in. The standard library's symbolizer parses every unit's debug
//! information first, tens of megabytes for a test program with its
//! dependencies.
//!
//! Inlined calls are not expanded: an address is named by the line its
//! instruction came from. Addresses outside the program's file (shared
//! libraries) have no symbol here.

use crate::backend::cpu::PanicLocation;
use core::ffi::{c_int, c_void};
use core::ops::Range;
use gimli::{EndianSlice, LittleEndian};
use std::sync::OnceLock;

/// The return addresses of the running thread's frames, innermost first
/// (at most 256).
pub(crate) fn return_addresses() -> Vec<usize> {
    #[repr(C)]
    struct UnwindContext {
        _opaque: [u8; 0],
    }
    unsafe extern "C" {
        fn _Unwind_Backtrace(
            trace: extern "C" fn(*mut UnwindContext, *mut c_void) -> c_int,
            data: *mut c_void,
        ) -> c_int;
        fn _Unwind_GetIP(context: *mut UnwindContext) -> usize;
    }
    const LIMIT: usize = 256;
    extern "C" fn push(context: *mut UnwindContext, data: *mut c_void) -> c_int {
        // SAFETY: `data` is the `Vec` passed below, alive for the walk and
        // used by nothing else meanwhile.
        let frames = unsafe { &mut *(data as *mut Vec<usize>) };
        // SAFETY: `context` is the unwinder's, valid during this call.
        frames.push(unsafe { _Unwind_GetIP(context) });
        // _URC_NO_REASON goes on; _URC_END_OF_STACK stops the walk.
        if frames.len() < LIMIT { 0 } else { 5 }
    }
    let mut frames: Vec<usize> = Vec::with_capacity(LIMIT);
    // SAFETY: the walk calls `push` with the pointer given here, which
    // stays valid until `_Unwind_Backtrace` returns.
    unsafe { _Unwind_Backtrace(push, &mut frames as *mut Vec<usize> as *mut c_void) };
    frames
}

/// The running program's file, mapped, with where its sections are.
pub(crate) struct Program {
    file: memmap2::Mmap,
    /// The difference between the program's run-time addresses and those
    /// its file states (where a position-independent program was loaded).
    bias: usize,
    symtab: Range<usize>,
    strtab: Range<usize>,
    /// The `.debug_*` sections by name.
    debug: Vec<(String, Range<usize>)>,
}

/// Why [`Program::get`] gives no program to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unavailable {
    /// The program has no line information, in its file or beside it (no
    /// `.debug_line`, no `.gnu_debuglink`, no file for its build id under
    /// `/usr/lib/debug`): no symbolizer can name a line (a release build).
    NoLines,
    /// It may have some that this reader does not read: not a 64-bit
    /// little-endian ELF, no symbol table, compressed debug sections, no
    /// unit address ranges, or debug information in another file.
    Elsewhere,
}

impl Program {
    /// The running program, mapped on first use.
    pub(crate) fn get() -> Result<&'static Program, Unavailable> {
        static PROGRAM: OnceLock<Result<Program, Unavailable>> = OnceLock::new();
        PROGRAM.get_or_init(Program::open).as_ref().map_err(|e| *e)
    }

    fn open() -> Result<Program, Unavailable> {
        Program::read().ok_or(Unavailable::Elsewhere)?
    }

    fn read() -> Option<Result<Program, Unavailable>> {
        let file = std::fs::File::open("/proc/self/exe").ok()?;
        // SAFETY: the mapping is read-only and of the running program's
        // own file, which the system keeps from being written while it
        // runs (ETXTBSY).
        let file = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        let elf = &file[..];
        // Magic, 64-bit, little-endian.
        if elf.get(..6)? != b"\x7fELF\x02\x01" {
            return None;
        }
        let shoff = u64_at(elf, 0x28)? as usize;
        let shentsize = u16_at(elf, 0x3a)? as usize;
        let shnum = u16_at(elf, 0x3c)? as usize;
        let shstrndx = u16_at(elf, 0x3e)? as usize;
        let header = |i: usize| -> Option<(u32, u32, u64, Range<usize>)> {
            let at = shoff.checked_add(i.checked_mul(shentsize)?)?;
            let name = u32_at(elf, at)?;
            let kind = u32_at(elf, at + 4)?;
            let flags = u64_at(elf, at + 8)?;
            let offset = u64_at(elf, at + 24)? as usize;
            let size = u64_at(elf, at + 32)? as usize;
            let range = offset..offset.checked_add(size)?;
            elf.get(range.clone())?;
            Some((name, kind, flags, range))
        };
        let (_, _, _, names) = header(shstrndx)?;
        const SHT_SYMTAB: u32 = 2;
        const SHT_NOBITS: u32 = 8;
        const SHF_COMPRESSED: u64 = 0x800;
        let mut symtab = None;
        let mut debug = Vec::new();
        let (mut compressed, mut debuglink, mut build_id) = (false, false, None);
        for i in 0..shnum {
            let (name, kind, flags, range) = header(i)?;
            let name = c_str(elf.get(names.start + name as usize..names.end)?)?;
            if kind == SHT_SYMTAB {
                let link = u32_at(elf, shoff + i * shentsize + 40)? as usize;
                symtab = Some((range, header(link)?.3));
            } else if name.starts_with(".debug_") {
                compressed |= flags & SHF_COMPRESSED != 0;
                if kind != SHT_NOBITS {
                    debug.push((name.to_string(), range));
                }
            } else if name == ".gnu_debuglink" {
                debuglink = true;
            } else if name == ".note.gnu.build-id" {
                build_id = build_id_of(&elf[range]);
            }
        }
        let has = |section: &str| debug.iter().any(|(n, _)| n == section);
        if !has(".debug_line") && !debuglink && !build_id.is_some_and(|id| debug_file(&id)) {
            return Some(Err(Unavailable::NoLines));
        }
        let (symtab, strtab) = symtab?;
        if compressed || !has(".debug_aranges") {
            return None;
        }
        Some(Ok(Program {
            file,
            bias: load_bias()?,
            symtab,
            strtab,
            debug,
        }))
    }

    /// The demangled name (without its hash) of the function holding each
    /// of `addresses`, return addresses of calls; one pass over the symbol
    /// table for all of them.
    pub(crate) fn symbols(&self, addresses: &[usize]) -> Vec<Option<String>> {
        let elf = &self.file[..];
        let targets: Vec<u64> = addresses
            .iter()
            .map(|&a| a.wrapping_sub(self.bias).wrapping_sub(1) as u64)
            .collect();
        let mut found: Vec<Option<u32>> = vec![None; targets.len()];
        const STT_FUNC: u8 = 2;
        for entry in self.file[self.symtab.clone()].chunks_exact(24) {
            if entry[4] & 0xf != STT_FUNC {
                continue;
            }
            let value = u64::from_le_bytes(entry[8..16].try_into().unwrap());
            let size = u64::from_le_bytes(entry[16..24].try_into().unwrap());
            for (t, f) in targets.iter().zip(found.iter_mut()) {
                if f.is_none() && t.wrapping_sub(value) < size {
                    *f = Some(u32::from_le_bytes(entry[0..4].try_into().unwrap()));
                }
            }
        }
        found
            .into_iter()
            .map(|name| {
                let at = self.strtab.start.checked_add(name? as usize)?;
                let name = c_str(elf.get(at..self.strtab.end)?)?;
                Some(format!("{:#}", rustc_demangle::demangle(name)))
            })
            .collect()
    }

    /// The frames at `address`, a return address in a function of the
    /// program, innermost first: the functions inlined there, each named
    /// and at its line (`None` for a name the debug information does not
    /// give), then the function itself (`None`: its symbol names it) at the
    /// line that called the outermost of them. `None` where this file has
    /// no line information for the address (a unit without address
    /// ranges, or one whose functions are in a split DWARF file).
    pub(crate) fn frames(
        &self,
        address: usize,
    ) -> Option<Vec<(Option<String>, Option<PanicLocation>)>> {
        self.inlined(address.wrapping_sub(self.bias).wrapping_sub(1) as u64)
    }

    fn inlined(&self, target: u64) -> Option<Vec<(Option<String>, Option<PanicLocation>)>> {
        let dwarf = gimli::Dwarf::load(|id| -> Result<Reader<'_>, ()> {
            let data = self
                .debug
                .iter()
                .find(|(n, _)| n == id.name())
                .map_or(&[][..], |(_, r)| &self.file[r.clone()]);
            Ok(EndianSlice::new(data, LittleEndian))
        })
        .ok()?;
        // The unit holding the address.
        let mut sets = dwarf.debug_aranges.headers();
        let offset = 'find: loop {
            let set = sets.next().ok()??;
            let mut entries = set.entries();
            while let Some(entry) = entries.next().ok()? {
                if target.wrapping_sub(entry.address()) < entry.length() {
                    break 'find set.debug_info_offset();
                }
            }
        };
        let unit = dwarf
            .unit(dwarf.debug_info.header_from_offset(offset).ok()?)
            .ok()?;
        if unit.dwo_id.is_some() {
            return None; // a skeleton: its functions are in a split file
        }
        let program = unit.line_program.clone()?;
        let header = program.header().clone();
        let path = |file: u64| -> Option<String> { file_path(&dwarf, &unit, &header, file) };
        // The function holding the address and the calls inlined into it
        // around the address, outermost first.
        let mut nest = Vec::new();
        let mut tree = unit.entries_tree(None).ok()?;
        enclosing(&dwarf, &unit, tree.root().ok()?, target, &mut nest).ok()?;
        // The line the instruction came from: the last row at or below the
        // address in its sequence.
        let mut rows = program.rows();
        let mut before: Option<(u64, u64, u64, u64)> = None;
        let mut found = None;
        while let Some((_, row)) = rows.next_row().ok()? {
            if let Some((start, file, line, column)) = before
                && start <= target
                && target < row.address()
            {
                found = Some((file, line, column));
                break;
            }
            before = (!row.end_sequence()).then(|| {
                let column = match row.column() {
                    gimli::ColumnType::LeftEdge => 0,
                    gimli::ColumnType::Column(c) => c.get(),
                };
                let line = row.line().map_or(0, |l| l.get());
                (row.address(), row.file_index(), line, column)
            });
        }
        let mut at = found.and_then(|(file, line, column)| location(path(file)?, line, column));
        let mut frames = Vec::new();
        for (i, call) in nest.iter().enumerate().rev() {
            // The outermost is the function the symbol names.
            let name = if i == 0 { None } else { call.name.clone() };
            frames.push((name, at.take()));
            at = call
                .site
                .and_then(|(file, line, column)| location(path(file)?, line, column));
        }
        if frames.is_empty() {
            frames.push((None, at));
        }
        Some(frames)
    }
}

type Reader<'a> = EndianSlice<'a, LittleEndian>;

/// A function, or a call inlined into one, holding an address.
struct Enclosing {
    /// Its demangled name, without the hash.
    name: Option<String>,
    /// Where an inlined call was made: file index, line, column.
    site: Option<(u64, u64, u64)>,
}

/// Pushes onto `nest` the function under `node` holding `target`, then the
/// inlined calls in it that hold `target`, outermost first.
fn enclosing(
    dwarf: &gimli::Dwarf<Reader<'_>>,
    unit: &gimli::Unit<Reader<'_>>,
    node: gimli::EntriesTreeNode<'_, '_, '_, Reader<'_>>,
    target: u64,
    nest: &mut Vec<Enclosing>,
) -> gimli::Result<()> {
    let mut children = node.children();
    while let Some(child) = children.next()? {
        let entry = child.entry();
        let callable = matches!(
            entry.tag(),
            gimli::DW_TAG_subprogram | gimli::DW_TAG_inlined_subroutine
        );
        if callable {
            let mut ranges = dwarf.die_ranges(unit, entry)?;
            let mut holds = false;
            while let Some(r) = ranges.next()? {
                holds |= r.begin <= target && target < r.end;
            }
            if !holds {
                continue;
            }
            let number = |at| match entry.attr_value(at) {
                Ok(Some(gimli::AttributeValue::FileIndex(file))) => Some(file),
                Ok(Some(v)) => v.udata_value(),
                _ => None,
            };
            let site = match (
                number(gimli::DW_AT_call_file),
                number(gimli::DW_AT_call_line),
            ) {
                (Some(file), Some(line)) => {
                    Some((file, line, number(gimli::DW_AT_call_column).unwrap_or(0)))
                }
                _ => None,
            };
            nest.push(Enclosing {
                name: die_name(dwarf, unit, entry, 3),
                site,
            });
            return enclosing(dwarf, unit, child, target, nest);
        }
        // Namespaces, types and lexical blocks hold functions and calls.
        let before = nest.len();
        enclosing(dwarf, unit, child, target, nest)?;
        if nest.len() > before {
            return Ok(());
        }
    }
    Ok(())
}

/// The demangled name (without its hash) of a function's entry, through
/// its abstract origin or specification where the entry has none (in its
/// own unit or, found through the units' address ranges, another).
fn die_name(
    dwarf: &gimli::Dwarf<Reader<'_>>,
    unit: &gimli::Unit<Reader<'_>>,
    entry: &gimli::DebuggingInformationEntry<'_, '_, Reader<'_>>,
    depth: u32,
) -> Option<String> {
    for at in [gimli::DW_AT_linkage_name, gimli::DW_AT_MIPS_linkage_name] {
        if let Ok(Some(value)) = entry.attr_value(at) {
            let name = dwarf.attr_string(unit, value).ok()?;
            let name = core::str::from_utf8(name.slice()).ok()?;
            return Some(format!("{:#}", rustc_demangle::demangle(name)));
        }
    }
    for at in [gimli::DW_AT_abstract_origin, gimli::DW_AT_specification] {
        match entry.attr_value(at) {
            Ok(Some(_)) if depth == 0 => return None,
            Ok(Some(gimli::AttributeValue::UnitRef(offset))) => {
                let origin = unit.entry(offset).ok()?;
                return die_name(dwarf, unit, &origin, depth - 1);
            }
            Ok(Some(gimli::AttributeValue::DebugInfoRef(offset))) => {
                let other = unit_holding(dwarf, offset)?;
                let origin = other.entry(offset.to_unit_offset(&other.header)?).ok()?;
                return die_name(dwarf, &other, &origin, depth - 1);
            }
            _ => {}
        }
    }
    let name = dwarf
        .attr_string(unit, entry.attr_value(gimli::DW_AT_name).ok()??)
        .ok()?;
    Some(String::from_utf8_lossy(name.slice()).into_owned())
}

/// The unit whose entries hold `offset` in `.debug_info`: the last unit at
/// or before it among those the address ranges list.
fn unit_holding<'a>(
    dwarf: &gimli::Dwarf<Reader<'a>>,
    offset: gimli::DebugInfoOffset,
) -> Option<gimli::Unit<Reader<'a>>> {
    let mut sets = dwarf.debug_aranges.headers();
    let mut best: Option<gimli::DebugInfoOffset> = None;
    while let Some(set) = sets.next().ok()? {
        let start = set.debug_info_offset();
        if start.0 <= offset.0 && best.is_none_or(|b| b.0 < start.0) {
            best = Some(start);
        }
    }
    let header = dwarf.debug_info.header_from_offset(best?).ok()?;
    if offset.0 >= best?.0 + header.length_including_self() {
        return None;
    }
    dwarf.unit(header).ok()
}

/// The path of file `index` of a unit's line table: the unit's folder,
/// then the entry's folder, then its name, an absolute part replacing what
/// comes before it.
fn file_path(
    dwarf: &gimli::Dwarf<Reader<'_>>,
    unit: &gimli::Unit<Reader<'_>>,
    header: &gimli::LineProgramHeader<Reader<'_>>,
    index: u64,
) -> Option<String> {
    let entry = header.file(index)?;
    let text = |value| -> Option<String> {
        let s = dwarf.attr_string(unit, value).ok()?;
        Some(String::from_utf8_lossy(s.slice()).into_owned())
    };
    let mut path = unit
        .comp_dir
        .map(|d| String::from_utf8_lossy(d.slice()).into_owned())
        .unwrap_or_default();
    if (header.version() >= 5 || entry.directory_index() != 0)
        && let Some(dir) = entry.directory(header).and_then(text)
    {
        join(&mut path, &dir);
    }
    join(&mut path, &text(entry.path_name())?);
    Some(path)
}

fn location(file: String, line: u64, column: u64) -> Option<PanicLocation> {
    Some(PanicLocation {
        file,
        line: u32::try_from(line).ok()?,
        column: u32::try_from(column).ok()?,
    })
}

/// The build id in a `.note.gnu.build-id` section: a note of type 3 named
/// `GNU`.
fn build_id_of(note: &[u8]) -> Option<Vec<u8>> {
    let name_size = u32_at(note, 0)? as usize;
    let desc_size = u32_at(note, 4)? as usize;
    let kind = u32_at(note, 8)?;
    let desc = 12 + name_size.div_ceil(4) * 4;
    (kind == 3 && note.get(12..16)? == b"GNU\0")
        .then(|| note.get(desc..desc + desc_size).map(<[u8]>::to_vec))?
}

/// Whether the system keeps a debug file for build id `id`
/// (`/usr/lib/debug/.build-id/ab/cdef….debug`).
fn debug_file(id: &[u8]) -> bool {
    let Some((first, rest)) = id.split_first() else {
        return false;
    };
    let hex: String = rest.iter().map(|b| format!("{b:02x}")).collect();
    std::path::Path::new(&format!("/usr/lib/debug/.build-id/{first:02x}/{hex}.debug")).exists()
}

/// `path` followed by `part`, or `part` when it is absolute.
fn join(path: &mut String, part: &str) {
    if part.starts_with('/') {
        path.clear();
    } else if !path.is_empty() && !path.ends_with('/') {
        path.push('/');
    }
    path.push_str(part);
}

/// Where the system loaded the program: the first object
/// `dl_iterate_phdr` reports is the program itself.
fn load_bias() -> Option<usize> {
    #[repr(C)]
    struct PhdrInfo {
        addr: usize,
        name: *const core::ffi::c_char,
        phdr: *const c_void,
        phnum: u16,
    }
    unsafe extern "C" {
        fn dl_iterate_phdr(
            callback: extern "C" fn(*mut PhdrInfo, usize, *mut c_void) -> c_int,
            data: *mut c_void,
        ) -> c_int;
    }
    extern "C" fn first(info: *mut PhdrInfo, _size: usize, data: *mut c_void) -> c_int {
        // SAFETY: `data` is the `Option` passed below; `info` is the
        // loader's, valid during this call.
        unsafe { *(data as *mut Option<usize>) = Some((*info).addr) };
        1
    }
    let mut bias: Option<usize> = None;
    // SAFETY: `first` writes through the pointer given here, valid until
    // `dl_iterate_phdr` returns.
    unsafe { dl_iterate_phdr(first, &mut bias as *mut Option<usize> as *mut c_void) };
    bias
}

fn c_str(bytes: &[u8]) -> Option<&str> {
    let end = bytes.iter().position(|&b| b == 0)?;
    core::str::from_utf8(&bytes[..end]).ok()
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::{Program, return_addresses};

    /// The frames of this test's own calls, two lines apart.
    fn two_calls() -> [(Vec<usize>, u32); 2] {
        let one = (return_addresses(), line!());
        let padding = core::hint::black_box(3u32).wrapping_mul(7);
        let two = (return_addresses(), line!() + padding - padding);
        [one, two]
    }

    #[test]
    fn a_return_address_is_named_with_the_line_that_called() {
        // Test builds carry line tables and unit address ranges.
        let program = Program::get().expect("the test program's debug information");
        assert_eq!(
            super::build_id_of(b"\x04\0\0\0\x02\0\0\0\x03\0\0\0GNU\0\xab\xcd"),
            Some(vec![0xab, 0xcd])
        );
        for (addresses, line) in two_calls() {
            // Each address's frames, inlined calls expanded (this crate is
            // optimized a little in test builds), innermost first.
            let mut frames = Vec::new();
            for (symbol, address) in program.symbols(&addresses).into_iter().zip(&addresses) {
                let Some(symbol) = symbol else { continue };
                for (name, at) in program.frames(*address).expect("line information") {
                    frames.push((name.unwrap_or_else(|| symbol.clone()), at));
                }
            }
            let at = frames
                .iter()
                // Full debug information names it by its path; line tables
                // only (this workspace's dev profile), by its bare name.
                .position(|(name, _)| name == "two_calls" || name.ends_with("tests::two_calls"))
                .unwrap_or_else(|| panic!("no frame of `two_calls` in {frames:?}"));
            let location = frames[at].1.as_ref().expect("a line");
            assert!(
                location.file.ends_with("engine/symbolize.rs"),
                "{location:?}"
            );
            assert_eq!((location.line, location.column), (line, 20));
            // The caller's frame is named, with its line.
            let (caller, location) = &frames[at + 1];
            assert!(
                caller.ends_with("a_return_address_is_named_with_the_line_that_called"),
                "{caller}"
            );
            assert!(location.as_ref().is_some_and(|l| l.line > line));
        }
    }
}
