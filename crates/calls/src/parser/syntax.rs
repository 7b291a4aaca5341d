//! Lexing and parsing of Solidity-style calls into an AST with byte spans.
//!
//! ```text
//! sequence := call ((';' | newline) call)* [';']
//! call     := NAME ['{' option (',' option)* '}'] '(' [expr (',' expr)*] ')'
//! option   := ('value' | 'from' | 'delay' | 'blocks' | 'gasprice' | 'to') ':' expr
//! expr     := number [unit] | '-' number [unit] | 0x… | true | false
//!           | "string" | hex"…" | '[' exprs ']' | '(' exprs [','] ')' | TYPE '(' expr ')'
//!           | '?' | '$' digits ['.' (NAME | digits)]
//! unit     := wei | gwei | ether | seconds | minutes | hours | days | weeks
//! ```

use alloy_primitives::U256;
use std::ops::Range;

/// A parse error: where, what was expected, what was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at {}..{}: expected {expected}, found {found}", span.start, span.end)]
pub struct ParseError {
    pub span: Range<usize>,
    pub expected: String,
    pub found: String,
}

fn err<T>(
    span: Range<usize>,
    expected: impl Into<String>,
    found: impl Into<String>,
) -> Result<T, ParseError> {
    Err(ParseError {
        span,
        expected: expected.into(),
        found: found.into(),
    })
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    /// Decimal digits as written (underscores removed), optional fraction and exponent.
    Dec(String),
    /// Hex digits after `0x`, as written.
    Hex(String),
    Str(String),
    HexStr(Vec<u8>),
    Punct(char),
    Newline,
    End,
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Dec(s) => format!("number {s}"),
        Tok::Hex(s) => format!("0x{s}"),
        Tok::Str(_) => "a string".into(),
        Tok::HexStr(_) => "a hex string".into(),
        Tok::Punct(c) => format!("`{c}`"),
        Tok::Newline => "a line break".into(),
        Tok::End => "end of input".into(),
    }
}

fn lex(src: &str) -> Result<Vec<(Tok, Range<usize>)>, ParseError> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        match c {
            b' ' | b'\t' | b'\r' => i += 1,
            b'\n' => {
                out.push((Tok::Newline, i..i + 1));
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' | b')' | b'[' | b']' | b'{' | b'}' | b',' | b';' | b':' | b'-' | b'?' => {
                out.push((Tok::Punct(c as char), i..i + 1));
                i += 1;
            }
            b'"' | b'\'' => {
                let (s, end) = lex_string(src, i)?;
                out.push((Tok::Str(s), start..end));
                i = end;
            }
            b'0' if matches!(b.get(i + 1), Some(b'x' | b'X')) => {
                i += 2;
                let ds = i;
                while i < b.len() && (b[i].is_ascii_hexdigit() || b[i] == b'_') {
                    i += 1;
                }
                if i == ds {
                    return err(start..i, "hex digits after 0x", "none");
                }
                if i < b.len() && (b[i].is_ascii_alphanumeric()) {
                    return err(i..i + 1, "a hex digit", format!("`{}`", b[i] as char));
                }
                out.push((Tok::Hex(src[ds..i].replace('_', "")), start..i));
            }
            b'0'..=b'9' => {
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                    i += 1;
                }
                if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
                    i += 1;
                    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                        i += 1;
                    }
                }
                if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                    let mut j = i + 1;
                    if j < b.len() && b[j] == b'-' {
                        j += 1;
                    }
                    if j < b.len() && b[j].is_ascii_digit() {
                        i = j;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                }
                if i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b'_') {
                    return err(
                        i..i + 1,
                        "a digit or a separator",
                        format!("`{}`", b[i] as char),
                    );
                }
                out.push((Tok::Dec(src[start..i].replace('_', "")), start..i));
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$')
                {
                    i += 1;
                }
                let word = &src[start..i];
                if word == "hex" && matches!(b.get(i), Some(b'"' | b'\'')) {
                    let (s, end) = lex_string(src, i)?;
                    let digits: String = s.chars().filter(|c| *c != '_').collect();
                    if !digits.len().is_multiple_of(2) {
                        return err(
                            start..end,
                            "an even number of hex digits",
                            format!("{} digits", digits.len()),
                        );
                    }
                    let bytes = alloy_primitives::hex::decode(&digits).map_err(|_| ParseError {
                        span: start..end,
                        expected: "hex digits".into(),
                        found: format!("{s:?}"),
                    })?;
                    out.push((Tok::HexStr(bytes), start..end));
                    i = end;
                } else if is_reference(word) && b.get(i) == Some(&b'.') {
                    // `$2.shares`: a reference and its field, one token.
                    let fs = i + 1;
                    i = fs;
                    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                        i += 1;
                    }
                    if i == fs {
                        return err(fs - 1..fs, "a field name after `.`", "none");
                    }
                    out.push((Tok::Ident(src[start..i].to_string()), start..i));
                } else {
                    out.push((Tok::Ident(word.to_string()), start..i));
                }
            }
            _ => {
                let ch = src[i..].chars().next().unwrap_or('?');
                return err(i..i + ch.len_utf8(), "a call", format!("`{ch}`"));
            }
        }
    }
    out.push((Tok::End, b.len()..b.len()));
    Ok(out)
}

fn lex_string(src: &str, start: usize) -> Result<(String, usize), ParseError> {
    let quote = src.as_bytes()[start] as char;
    let mut s = String::new();
    let mut chars = src[start + 1..].char_indices();
    while let Some((off, c)) = chars.next() {
        let at = start + 1 + off;
        match c {
            c if c == quote => return Ok((s, at + 1)),
            '\\' => {
                let Some((_, e)) = chars.next() else { break };
                match e {
                    'n' => s.push('\n'),
                    'r' => s.push('\r'),
                    't' => s.push('\t'),
                    '\\' => s.push('\\'),
                    '"' => s.push('"'),
                    '\'' => s.push('\''),
                    '0' => s.push('\0'),
                    'x' => {
                        let h: String = (0..2)
                            .filter_map(|_| chars.next().map(|(_, c)| c))
                            .collect();
                        let end = start + 1 + chars.offset();
                        let v = u8::from_str_radix(&h, 16).map_err(|_| ParseError {
                            span: at..end,
                            expected: "two hex digits after \\x".into(),
                            found: format!("{h:?}"),
                        })?;
                        s.push(v as char);
                    }
                    'u' => {
                        let h: String = (0..4)
                            .filter_map(|_| chars.next().map(|(_, c)| c))
                            .collect();
                        let end = start + 1 + chars.offset();
                        let v = u32::from_str_radix(&h, 16)
                            .ok()
                            .and_then(char::from_u32)
                            .ok_or_else(|| ParseError {
                                span: at..end,
                                expected: "four hex digits after \\u".into(),
                                found: format!("{h:?}"),
                            })?;
                        s.push(v);
                    }
                    other => {
                        return err(
                            at..at + 1 + other.len_utf8(),
                            "an escape (\\n \\t \\\\ \\\" \\xNN \\uNNNN)",
                            format!("\\{other}"),
                        );
                    }
                }
            }
            '\n' => return err(start..at, format!("closing {quote}"), "a line break"),
            c => s.push(c),
        }
    }
    err(start..src.len(), format!("closing {quote}"), "end of input")
}

/// A literal or composite argument, with its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Range<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    /// An integer; `hex_digits` is set when written as `0x…` (its digit count).
    Int {
        value: U256,
        negative: bool,
        hex_digits: Option<usize>,
        /// The hex digits as written, for addresses' checksum and bytes.
        hex: Option<String>,
    },
    Bool(bool),
    Str(String),
    Bytes(Vec<u8>),
    Array(Vec<Expr>),
    Tuple(Vec<Expr>),
    /// `uint8(5)`, `address(0x…)`: pins the argument's type.
    Cast(String, Box<Expr>),
    /// `?`: any value, drawn anew by each worker each time the call runs.
    Hole,
    /// `$2`, `$2.shares`, `$2.1`: a value call 2 of the same sequence
    /// produced (its return value, a named or numbered output, or an
    /// argument of an event it emitted), filled in when the call runs.
    Ref {
        /// The earlier call, numbered from 1 in the sequence's order.
        call: usize,
        /// The output or event argument, as written after the `.`.
        field: Option<String>,
    },
}

impl Expr {
    /// Whether this expression is or contains a `?`.
    pub fn has_hole(&self) -> bool {
        match &self.kind {
            ExprKind::Hole => true,
            ExprKind::Array(items) | ExprKind::Tuple(items) => items.iter().any(Expr::has_hole),
            ExprKind::Cast(_, inner) => inner.has_hole(),
            _ => false,
        }
    }

    /// Whether this expression is or contains a `$n` reference.
    pub fn has_ref(&self) -> bool {
        match &self.kind {
            ExprKind::Ref { .. } => true,
            ExprKind::Array(items) | ExprKind::Tuple(items) => items.iter().any(Expr::has_ref),
            ExprKind::Cast(_, inner) => inner.has_ref(),
            _ => false,
        }
    }
}

/// Whether an identifier is a reference's head: `$` and digits.
fn is_reference(word: &str) -> bool {
    word.len() > 1 && word.starts_with('$') && word[1..].bytes().all(|c| c.is_ascii_digit())
}

/// `$2` or `$2.field` as an expression.
fn reference(word: &str, span: Range<usize>) -> Result<Expr, ParseError> {
    let (head, field) = match word.split_once('.') {
        Some((h, f)) => (h, Some(f.to_string())),
        None => (word, None),
    };
    let call = match head[1..].parse::<usize>() {
        Ok(n) if n >= 1 => n,
        _ => {
            return err(
                span.start..span.start + head.len(),
                "a call number from $1 (the sequence's first call)",
                format!("`{head}`"),
            );
        }
    };
    Ok(Expr {
        kind: ExprKind::Ref { call, field },
        span,
    })
}

/// Per-call options: `f{value: 1 ether, from: 0x…, delay: 1 days, blocks: 10, gasprice: 5 gwei}(…)`;
/// `to: 0x…` sends the call to another deployed contract (`allContracts`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallOptions {
    pub value: Option<Expr>,
    pub from: Option<Expr>,
    pub delay: Option<Expr>,
    pub blocks: Option<Expr>,
    pub gas_price: Option<Expr>,
    pub to: Option<Expr>,
}

/// One parsed call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallExpr {
    pub name: String,
    pub name_span: Range<usize>,
    pub options: CallOptions,
    pub args: Vec<Expr>,
    pub span: Range<usize>,
}

/// How deeply arrays, tuples and casts may nest in one argument. Solidity
/// values rarely nest past 4; the limit keeps hostile input (`f([[[[…`)
/// from exhausting the parser's stack.
pub const MAX_NESTING: usize = 32;

struct P {
    toks: Vec<(Tok, Range<usize>)>,
    pos: usize,
    /// Open `[`, `(` and casts around the expression being parsed.
    depth: usize,
}

const UNITS: &[(&str, u64, u32)] = &[
    // (name, multiplier mantissa, power of ten)
    ("wei", 1, 0),
    ("gwei", 1, 9),
    ("szabo", 1, 12),
    ("finney", 1, 15),
    ("ether", 1, 18),
    ("seconds", 1, 0),
    ("minutes", 60, 0),
    ("hours", 3600, 0),
    ("days", 86_400, 0),
    ("weeks", 604_800, 0),
];

/// Elementary type names that may be used as casts.
fn is_type_name(s: &str) -> bool {
    if matches!(s, "address" | "bool" | "string" | "bytes") {
        return true;
    }
    let num = |rest: &str, max: u32, step: u32| {
        rest.is_empty()
            || rest
                .parse::<u32>()
                .is_ok_and(|n| n >= step && n <= max && n % step == 0 && !rest.starts_with('0'))
    };
    if let Some(r) = s.strip_prefix("uint") {
        return num(r, 256, 8);
    }
    if let Some(r) = s.strip_prefix("int") {
        return num(r, 256, 8);
    }
    if let Some(r) = s.strip_prefix("bytes") {
        return !r.is_empty() && num(r, 32, 1);
    }
    false
}

impl P {
    fn peek(&self) -> &(Tok, Range<usize>) {
        &self.toks[self.pos]
    }

    fn next(&mut self) -> (Tok, Range<usize>) {
        let t = self.toks[self.pos].clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek().0 == Tok::Punct(c) {
            self.next();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char, what: &str) -> Result<Range<usize>, ParseError> {
        let (t, span) = self.next();
        if t == Tok::Punct(c) {
            Ok(span)
        } else {
            err(span, what, describe(&t))
        }
    }

    fn skip_newlines(&mut self) {
        while self.peek().0 == Tok::Newline {
            self.next();
        }
    }

    fn sequence(&mut self) -> Result<Vec<CallExpr>, ParseError> {
        let mut calls = Vec::new();
        loop {
            self.skip_newlines();
            while self.eat(';') {
                self.skip_newlines();
            }
            if self.peek().0 == Tok::End {
                break;
            }
            calls.push(self.call()?);
            let (t, span) = self.peek().clone();
            match t {
                Tok::Punct(';') | Tok::Newline | Tok::End => {}
                other => return err(span, "`;` or a line break between calls", describe(&other)),
            }
        }
        if calls.is_empty() {
            let span = self.peek().1.clone();
            return err(span, "a call like `f(1, 2)`", "nothing");
        }
        Ok(calls)
    }

    fn call(&mut self) -> Result<CallExpr, ParseError> {
        let (t, name_span) = self.next();
        let name = match t {
            Tok::Ident(n) => n,
            other => return err(name_span, "a function name", describe(&other)),
        };
        let mut options = CallOptions::default();
        if self.eat('{') {
            loop {
                let (t, span) = self.next();
                let key = match t {
                    Tok::Ident(k) => k,
                    Tok::Punct('}') => break,
                    other => {
                        return err(
                            span,
                            "`value`, `from`, `delay`, `blocks`, `gasprice` or `to`",
                            describe(&other),
                        );
                    }
                };
                self.expect(':', "`:` after the option name")?;
                let e = self.expr()?;
                let slot = match key.as_str() {
                    "value" => &mut options.value,
                    "from" | "sender" => &mut options.from,
                    "delay" | "time" => &mut options.delay,
                    "blocks" => &mut options.blocks,
                    "gasprice" | "gasPrice" => &mut options.gas_price,
                    "to" => &mut options.to,
                    _ => {
                        return err(
                            span,
                            "`value`, `from`, `delay`, `blocks`, `gasprice` or `to`",
                            format!("`{key}`"),
                        );
                    }
                };
                if slot.is_some() {
                    return err(span, "each option once", format!("`{key}` again"));
                }
                *slot = Some(e);
                if !self.eat(',') {
                    self.expect('}', "`,` or `}` in the options")?;
                    break;
                }
            }
        }
        self.expect('(', &format!("`(` after `{name}`"))?;
        let mut args = Vec::new();
        if !self.eat(')') {
            loop {
                args.push(self.expr()?);
                if self.eat(',') {
                    continue;
                }
                self.expect(')', "`,` or `)` after an argument")?;
                break;
            }
        }
        let end = self.toks[self.pos.saturating_sub(1)].1.end;
        Ok(CallExpr {
            name,
            span: name_span.start..end,
            name_span,
            options,
            args,
        })
    }

    fn list(&mut self, close: char) -> Result<(Vec<Expr>, bool), ParseError> {
        let mut items = Vec::new();
        let mut trailing = false;
        if self.eat(close) {
            return Ok((items, false));
        }
        loop {
            items.push(self.expr()?);
            if self.eat(',') {
                if self.eat(close) {
                    trailing = true;
                    break;
                }
                continue;
            }
            self.expect(close, &format!("`,` or `{close}`"))?;
            break;
        }
        Ok((items, trailing))
    }

    fn number(&mut self, negative: bool, start: usize) -> Result<Expr, ParseError> {
        let (t, span) = self.next();
        let (mut value, hex_digits, hex) = match &t {
            Tok::Dec(text) if text.contains(['.', 'e', 'E']) => (U256::ZERO, None, None),
            Tok::Dec(text) => (parse_decimal(text, span.clone())?, None, None),
            Tok::Hex(h) => {
                let v = U256::from_str_radix(h, 16).map_err(|_| ParseError {
                    span: span.clone(),
                    expected: "a number of at most 256 bits".into(),
                    found: format!("0x{h} ({} digits)", h.len()),
                })?;
                (v, Some(h.len()), Some(h.clone()))
            }
            other => return err(span, "a number", describe(other)),
        };
        let mut end = span.end;
        if let Tok::Ident(u) = &self.peek().0
            && let Some((_, m, p)) = UNITS.iter().find(|(n, _, _)| n == u)
        {
            let uspan = self.next().1;
            end = uspan.end;
            // Decimal text with a fraction or exponent: scale exactly.
            value = match &t {
                Tok::Dec(text) => scale_decimal(text, *m, *p, span.start..end)?,
                _ => value
                    .checked_mul(U256::from(*m))
                    .and_then(|v| v.checked_mul(U256::from(10u64).pow(U256::from(*p))))
                    .ok_or_else(|| ParseError {
                        span: span.start..end,
                        expected: "a value that fits 256 bits".into(),
                        found: "an overflow".into(),
                    })?,
            };
        } else if let Tok::Dec(text) = &t
            && text.contains(['.', 'e', 'E'])
        {
            value = scale_decimal(text, 1, 0, span.clone())?;
        }
        Ok(Expr {
            kind: ExprKind::Int {
                value,
                negative: negative && !value.is_zero(),
                hex_digits: if negative { None } else { hex_digits },
                hex,
            },
            span: start..end,
        })
    }

    fn expr(&mut self) -> Result<Expr, ParseError> {
        let (t, span) = self.peek().clone();
        let nests =
            matches!(t, Tok::Punct('[' | '(')) || matches!(&t, Tok::Ident(w) if is_type_name(w));
        if nests {
            if self.depth >= MAX_NESTING {
                return err(
                    span,
                    format!("at most {MAX_NESTING} nested arrays, tuples or casts"),
                    "deeper nesting",
                );
            }
            self.depth += 1;
        }
        let r = self.expr_inner(t, span);
        if nests {
            self.depth -= 1;
        }
        r
    }

    fn expr_inner(&mut self, t: Tok, span: Range<usize>) -> Result<Expr, ParseError> {
        match t {
            Tok::Punct('-') => {
                self.next();
                self.number(true, span.start)
            }
            Tok::Dec(_) | Tok::Hex(_) => self.number(false, span.start),
            Tok::Str(s) => {
                self.next();
                Ok(Expr {
                    kind: ExprKind::Str(s),
                    span,
                })
            }
            Tok::HexStr(b) => {
                self.next();
                Ok(Expr {
                    kind: ExprKind::Bytes(b),
                    span,
                })
            }
            Tok::Punct('[') => {
                self.next();
                let (items, _) = self.list(']')?;
                let end = self.toks[self.pos - 1].1.end;
                Ok(Expr {
                    kind: ExprKind::Array(items),
                    span: span.start..end,
                })
            }
            Tok::Punct('(') => {
                self.next();
                let (items, _) = self.list(')')?;
                let end = self.toks[self.pos - 1].1.end;
                Ok(Expr {
                    kind: ExprKind::Tuple(items),
                    span: span.start..end,
                })
            }
            Tok::Punct('?') => {
                self.next();
                Ok(Expr {
                    kind: ExprKind::Hole,
                    span,
                })
            }
            Tok::Ident(w) if is_reference(w.split('.').next().unwrap_or_default()) => {
                self.next();
                reference(&w, span)
            }
            Tok::Ident(w) if w == "true" || w == "false" => {
                self.next();
                Ok(Expr {
                    kind: ExprKind::Bool(w == "true"),
                    span,
                })
            }
            Tok::Ident(w) if is_type_name(&w) => {
                self.next();
                self.expect('(', &format!("`(` after the type `{w}`"))?;
                let inner = self.expr()?;
                let close = self.expect(')', "`)` closing the cast")?;
                Ok(Expr {
                    kind: ExprKind::Cast(w, Box::new(inner)),
                    span: span.start..close.end,
                })
            }
            other => err(
                span,
                "a value (number, address, true/false, string, hex\"…\", [..], (..), ? for any or $n for call n's result)",
                describe(&other),
            ),
        }
    }
}

fn parse_decimal(text: &str, span: Range<usize>) -> Result<U256, ParseError> {
    if text.contains('.') || text.contains(['e', 'E']) {
        return scale_decimal(text, 1, 0, span);
    }
    text.parse::<U256>().map_err(|_| ParseError {
        span,
        expected: "a number of at most 256 bits".into(),
        found: format!("{text} ({} digits)", text.len()),
    })
}

/// `text` (digits, optional `.fraction`, optional `e[-]exp`) times `m * 10^p`,
/// which must come out a whole number.
fn scale_decimal(text: &str, m: u64, p: u32, span: Range<usize>) -> Result<U256, ParseError> {
    let overflow = || ParseError {
        span: span.clone(),
        expected: "a value that fits 256 bits".into(),
        found: text.to_string(),
    };
    // An exponent that does not fit an i64 is never a 256-bit value (and
    // never silently 0: `1e99999999999999999999` is an error, not 1).
    let (mantissa, exp) = match text.find(['e', 'E']) {
        Some(i) => (
            &text[..i],
            text[i + 1..].parse::<i64>().map_err(|_| overflow())?,
        ),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let exp10 = exp
        .checked_add(p as i64)
        .and_then(|e| e.checked_sub(frac.len() as i64))
        .ok_or_else(overflow)?;
    let mut v = digits.parse::<U256>().map_err(|_| overflow())?;
    if v.is_zero() {
        return Ok(v);
    }
    v = v.checked_mul(U256::from(m)).ok_or_else(overflow)?;
    if exp10 >= 0 {
        let f = U256::from(10u64)
            .checked_pow(U256::from(exp10 as u64))
            .ok_or_else(overflow)?;
        v.checked_mul(f).ok_or_else(overflow)
    } else {
        let f = U256::from(10u64)
            .checked_pow(U256::from((-exp10) as u64))
            .ok_or_else(overflow)?;
        if v % f != U256::ZERO {
            return err(
                span,
                "a whole number (after units)",
                format!("{text} has a fraction left"),
            );
        }
        Ok(v / f)
    }
}

/// Parses one call or a sequence separated by `;` or line breaks.
pub fn parse_sequence(src: &str) -> Result<Vec<CallExpr>, ParseError> {
    let toks = lex(src)?;
    P {
        toks,
        pos: 0,
        depth: 0,
    }
    .sequence()
}

/// Parses exactly one call.
pub fn parse_call(src: &str) -> Result<CallExpr, ParseError> {
    let mut calls = parse_sequence(src)?;
    if calls.len() != 1 {
        let second = &calls[1];
        return err(
            second.span.clone(),
            "one call",
            format!("{} calls", calls.len()),
        );
    }
    Ok(calls.remove(0))
}
