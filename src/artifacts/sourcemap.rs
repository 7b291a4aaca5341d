//! solc source maps: the compressed `s:l:f:j:m` list, one entry per
//! instruction, and the instruction-index to program-counter walk that ties
//! them to the bytecode.

use thiserror::Error;

/// One decoded source-map entry: the byte range `start..start + len` of source
/// file `file` (`None` for "no source", solc's `-1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceMapEntry {
    pub start: u32,
    pub len: u32,
    pub file: Option<u32>,
    pub jump: Jump,
}

/// solc's jump annotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jump {
    In,
    Out,
    Regular,
}

#[derive(Debug, Error, PartialEq, Eq)]
#[error("source map entry {entry}: {what}")]
pub struct SourceMapError {
    pub entry: usize,
    pub what: String,
}

/// A decoded source map, indexed by program counter.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    /// `by_pc[pc]`: the entry of the instruction starting at `pc`, if any.
    by_pc: Vec<Option<SourceMapEntry>>,
    /// PCs at which an instruction starts, with its opcode.
    instructions: Vec<(u32, u8)>,
}

impl SourceMap {
    /// Decodes `map` against `code` (the bytecode it was emitted for).
    pub fn new(map: &str, code: &[u8]) -> Result<Self, SourceMapError> {
        let entries = decode(map)?;
        let instructions = instruction_starts(code);
        let mut by_pc = vec![None; code.len()];
        for (&(pc, _), e) in instructions.iter().zip(entries.iter()) {
            by_pc[pc as usize] = Some(*e);
        }
        Ok(SourceMap {
            by_pc,
            instructions,
        })
    }

    /// The entry of the instruction at `pc`.
    pub fn at(&self, pc: usize) -> Option<&SourceMapEntry> {
        self.by_pc.get(pc).and_then(|e| e.as_ref())
    }

    /// `(pc, opcode)` of every instruction of the code.
    pub fn instructions(&self) -> &[(u32, u8)] {
        &self.instructions
    }
}

/// Decodes the compressed form: entries separated by `;`, fields by `:`,
/// an empty field repeats the previous entry's.
pub fn decode(map: &str) -> Result<Vec<SourceMapEntry>, SourceMapError> {
    let mut out = Vec::new();
    let mut prev = SourceMapEntry {
        start: 0,
        len: 0,
        file: None,
        jump: Jump::Regular,
    };
    if map.is_empty() {
        return Ok(out);
    }
    for (i, item) in map.split(';').enumerate() {
        let mut cur = prev;
        for (k, field) in item.split(':').enumerate() {
            if field.is_empty() {
                continue;
            }
            let bad = |what: &str| SourceMapError {
                entry: i,
                what: format!("{what} {field:?}"),
            };
            // solc writes `-1` for code it generated itself (optimizer-on
            // builds are full of it): no source range, like a file of -1.
            match k {
                0 => {
                    let v: i64 = field.parse().map_err(|_| bad("bad start"))?;
                    cur.start = u32::try_from(v).unwrap_or(0);
                    if v < 0 {
                        cur.file = None;
                    }
                }
                1 => {
                    let v: i64 = field.parse().map_err(|_| bad("bad length"))?;
                    cur.len = u32::try_from(v).unwrap_or(0);
                }
                2 => {
                    let f: i64 = field.parse().map_err(|_| bad("bad file index"))?;
                    cur.file = u32::try_from(f).ok();
                }
                3 => {
                    cur.jump = match field {
                        "i" => Jump::In,
                        "o" => Jump::Out,
                        "-" => Jump::Regular,
                        _ => return Err(bad("bad jump")),
                    }
                }
                _ => {} // modifier depth and later additions
            }
        }
        out.push(cur);
        prev = cur;
    }
    Ok(out)
}

/// `(pc, opcode)` of each instruction: PUSH1..PUSH32 carry 1..32 immediate bytes.
pub fn instruction_starts(code: &[u8]) -> Vec<(u32, u8)> {
    let mut out = Vec::with_capacity(code.len() / 2);
    let mut pc = 0usize;
    while pc < code.len() {
        let op = code[pc];
        out.push((pc as u32, op));
        pc += 1;
        if (0x60..=0x7f).contains(&op) {
            pc += (op - 0x5f) as usize;
        }
    }
    out
}

/// Line starts of a source text, for byte offset → 1-based line.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { starts }
    }

    /// 1-based line of byte `offset`.
    pub fn line(&self, offset: usize) -> u32 {
        self.starts.partition_point(|&s| s <= offset) as u32
    }

    pub fn lines(&self) -> usize {
        self.starts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_compressed_entries() {
        let e = decode("1:2:0:-;:9;3::1:i;;:::o;5:1:-1").unwrap();
        assert_eq!(e.len(), 6);
        assert_eq!((e[0].start, e[0].len, e[0].file), (1, 2, Some(0)));
        assert_eq!((e[1].start, e[1].len, e[1].file), (1, 9, Some(0)));
        assert_eq!(
            (e[2].start, e[2].len, e[2].file, e[2].jump),
            (3, 9, Some(1), Jump::In)
        );
        assert_eq!(e[3], e[2]);
        assert_eq!(e[4].jump, Jump::Out);
        assert_eq!((e[5].start, e[5].file), (5, None));
        assert!(decode("x:1").is_err());
        // Optimizer output: compiler-generated code has `-1` everywhere.
        let e = decode("1:2:0;-1:-1:-1:-;;7:3:0").unwrap();
        assert_eq!((e[1].start, e[1].len, e[1].file), (0, 0, None));
        assert_eq!(e[2], e[1]);
        assert_eq!((e[3].start, e[3].len, e[3].file), (7, 3, Some(0)));
        assert!(decode("").unwrap().is_empty());
    }

    #[test]
    fn walks_push_immediates() {
        // PUSH1 0x80 PUSH2 0x0102 JUMPDEST PUSH0 STOP
        let code = [0x60, 0x80, 0x61, 0x01, 0x02, 0x5b, 0x5f, 0x00];
        let pcs: Vec<_> = instruction_starts(&code).iter().map(|p| p.0).collect();
        assert_eq!(pcs, vec![0, 2, 5, 6, 7]);
        let map = SourceMap::new("0:1:0;2:1:0;4:1:0;6:1:0;8:1:0", &code).unwrap();
        assert_eq!(map.at(5).unwrap().start, 4);
        assert!(map.at(1).is_none());
    }

    #[test]
    fn lines_are_one_based() {
        let idx = LineIndex::new("a\nbc\n\nd");
        assert_eq!(idx.line(0), 1);
        assert_eq!(idx.line(2), 2);
        assert_eq!(idx.line(5), 3);
        assert_eq!(idx.line(6), 4);
    }
}
