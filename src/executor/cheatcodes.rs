//! hevm / Foundry cheatcodes at `0x7109709ECfa91a80626fF3989D68f67F5b1DD12D`:
//! what Echidna harnesses and Foundry invariant tests call (`hevm.warp`,
//! `vm.prank`, `vm.deal`, `vm.store`, …). The inspector answers calls to that
//! address itself; nothing runs there. An unknown cheatcode reverts with a
//! message naming its selector. `ffi` runs a command only when the config
//! says `allowFFI: true`.

use alloy_dyn_abi::{DynSolValue, JsonAbiExt};
use alloy_json_abi::Function;
use alloy_primitives::{Address, B256, Bytes, U256, address, hex};
use revm::bytecode::Bytecode;
use revm::context_interface::JournalTr;
use revm::context_interface::journaled_state::account::JournaledAccountTr;
use revm::database::{CacheDB, EmptyDB};
use revm::handler::MainnetContext;
use revm::interpreter::{CallInputs, CallOutcome, Gas, InstructionResult, InterpreterResult};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The cheatcode address (`address(uint160(uint256(keccak256("hevm cheat code"))))`).
pub const CHEATCODE_ADDRESS: Address = address!("7109709ecfa91a80626ff3989d68f67f5b1dd12d");

pub(crate) type Ctx = MainnetContext<CacheDB<EmptyDB>>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cheat {
    Warp,
    Roll,
    Fee,
    ChainId,
    Coinbase,
    Prevrandao,
    Prank,
    StartPrank,
    StopPrank,
    Deal,
    Store,
    Load,
    Etch,
    Addr,
    Sign,
    Label,
    GetNonce,
    SetNonce,
    Assume,
    ToString,
    Ffi,
    /// forge-std's assertions.
    Assert(Assertion),
}

const SIGNATURES: &[(&str, Cheat)] = &[
    ("warp(uint256)", Cheat::Warp),
    ("roll(uint256)", Cheat::Roll),
    ("fee(uint256)", Cheat::Fee),
    ("chainId(uint256)", Cheat::ChainId),
    ("coinbase(address)", Cheat::Coinbase),
    ("prevrandao(bytes32)", Cheat::Prevrandao),
    ("prevrandao(uint256)", Cheat::Prevrandao),
    ("difficulty(uint256)", Cheat::Prevrandao),
    ("prank(address)", Cheat::Prank),
    ("prank(address,address)", Cheat::Prank),
    ("startPrank(address)", Cheat::StartPrank),
    ("startPrank(address,address)", Cheat::StartPrank),
    ("stopPrank()", Cheat::StopPrank),
    ("deal(address,uint256)", Cheat::Deal),
    ("store(address,bytes32,bytes32)", Cheat::Store),
    ("load(address,bytes32)(bytes32)", Cheat::Load),
    ("etch(address,bytes)", Cheat::Etch),
    ("addr(uint256)(address)", Cheat::Addr),
    ("sign(uint256,bytes32)(uint8,bytes32,bytes32)", Cheat::Sign),
    ("label(address,string)", Cheat::Label),
    ("getNonce(address)(uint64)", Cheat::GetNonce),
    ("setNonce(address,uint64)", Cheat::SetNonce),
    ("assume(bool)", Cheat::Assume),
    ("toString(address)(string)", Cheat::ToString),
    ("toString(uint256)(string)", Cheat::ToString),
    ("toString(int256)(string)", Cheat::ToString),
    ("toString(bool)(string)", Cheat::ToString),
    ("toString(bytes32)(string)", Cheat::ToString),
    ("toString(bytes)(string)", Cheat::ToString),
    ("ffi(string[])(bytes)", Cheat::Ffi),
];

/// Each cheatcode's function, selector (hashed once) and meaning.
fn table() -> &'static [(Function, alloy_primitives::Selector, Cheat)] {
    static TABLE: OnceLock<Vec<(Function, alloy_primitives::Selector, Cheat)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let asserts = assertion_signatures();
        SIGNATURES
            .iter()
            .map(|(s, c)| (s.to_string(), *c))
            .chain(asserts)
            .map(|(s, c)| {
                let f = Function::parse(&s).expect("cheatcode signatures parse");
                let selector = f.selector();
                (f, selector, c)
            })
            .collect()
    })
}

/// Whether the cheatcode call `data` answers a pure function of its
/// arguments (assertions, `addr`, `sign`, `toString`, `label`, `assume`):
/// a check that makes only such calls can be skipped while what it read
/// holds (see [`super::reads`]).
pub fn is_pure(data: &[u8]) -> bool {
    data.len() >= 4
        && table().iter().any(|(_, s, c)| {
            s[..] == data[..4]
                && matches!(
                    c,
                    Cheat::Addr
                        | Cheat::Sign
                        | Cheat::Label
                        | Cheat::ToString
                        | Cheat::Assume
                        | Cheat::Assert(_)
                )
        })
}

/// The signatures rudder answers (for docs and tests).
pub fn supported() -> impl Iterator<Item = &'static str> {
    SIGNATURES.iter().map(|(s, _)| *s)
}

/// An active prank: calls made by `prankster` from `depth` appear to come
/// from `sender` (and, when set, the transaction from `origin`).
#[derive(Clone, Debug)]
struct Prank {
    prankster: Address,
    sender: Address,
    origin: Option<Address>,
    depth: usize,
    single: bool,
}

/// Cheatcode state of one EVM: pranks and labels (reset with each sequence).
#[derive(Clone, Debug, Default)]
pub struct Cheatcodes {
    prank: Option<Prank>,
    /// Names given with `label`, shown nowhere yet but kept for traces.
    pub labels: HashMap<Address, String>,
    /// `allowFFI`: whether `ffi` may run commands.
    pub allow_ffi: bool,
}

fn word(v: &DynSolValue) -> U256 {
    match v {
        DynSolValue::Uint(u, _) => *u,
        DynSolValue::Int(i, _) => i.into_raw(),
        DynSolValue::FixedBytes(b, _) => U256::from_be_bytes(b.0),
        DynSolValue::Bool(b) => U256::from(*b as u8),
        DynSolValue::Address(a) => U256::from_be_slice(a.as_slice()),
        _ => U256::ZERO,
    }
}

fn addr(v: &DynSolValue) -> Address {
    v.as_address().unwrap_or_default()
}

fn b32(v: &DynSolValue) -> B256 {
    B256::from(word(v).to_be_bytes::<32>())
}

/// `Error(string)` revert data.
pub fn revert_data(message: &str) -> Bytes {
    let mut data = vec![0x08, 0xc3, 0x79, 0xa0];
    data.extend(DynSolValue::String(message.to_string()).abi_encode_params());
    data.into()
}

impl Cheatcodes {
    pub fn new(allow_ffi: bool) -> Self {
        Cheatcodes {
            allow_ffi,
            ..Default::default()
        }
    }

    /// Whether a prank is set (a check's caller would not be its own).
    pub fn pranking(&self) -> bool {
        self.prank.is_some()
    }

    /// Forgets pranks (a new sequence starts from the deployed state).
    pub fn reset(&mut self) {
        self.prank = None;
    }

    /// Rewrites the caller of a call made while a prank is active.
    pub(crate) fn apply_prank(&mut self, ctx: &mut Ctx, inputs: &mut CallInputs) {
        let Some(p) = &self.prank else { return };
        if inputs.caller != p.prankster || ctx.journaled_state.depth != p.depth {
            return;
        }
        inputs.caller = p.sender;
        if let Some(o) = p.origin {
            ctx.tx.caller = o;
        }
        if p.single {
            self.prank = None;
        }
    }

    /// Answers a call to [`CHEATCODE_ADDRESS`].
    pub(crate) fn call(&mut self, ctx: &mut Ctx, inputs: &CallInputs) -> CallOutcome {
        let data = inputs.input.bytes(ctx);
        let (result, output) = match self.run(ctx, inputs.caller, &data) {
            Ok(out) => (InstructionResult::Return, out),
            Err(message) => (InstructionResult::Revert, revert_data(&message)),
        };
        CallOutcome::new(
            InterpreterResult::new(result, output, Gas::new(inputs.gas_limit)),
            inputs.return_memory_offset.clone(),
        )
    }

    fn run(&mut self, ctx: &mut Ctx, caller: Address, data: &[u8]) -> Result<Bytes, String> {
        if data.len() < 4 {
            return Err("cheatcode call without a selector".into());
        }
        let Some((f, _, cheat)) = table().iter().find(|(_, s, _)| s[..] == data[..4]) else {
            return Err(format!(
                "unknown cheatcode 0x{} (rudder supports forge-std's assert* and: {})",
                hex::encode(&data[..4]),
                SIGNATURES
                    .iter()
                    .map(|(s, _)| *s)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        };
        let args = f
            .abi_decode_input(&data[4..])
            .map_err(|e| format!("cheatcode {}: bad arguments: {e}", f.signature()))?;
        fn db_err<E: std::fmt::Debug>(e: E) -> String {
            format!("state access failed: {e:?}")
        }
        let out: Vec<DynSolValue> = match cheat {
            Cheat::Warp => {
                ctx.block.timestamp = word(&args[0]);
                vec![]
            }
            Cheat::Roll => {
                ctx.block.number = word(&args[0]);
                vec![]
            }
            Cheat::Fee => {
                ctx.block.basefee = word(&args[0]).saturating_to();
                vec![]
            }
            Cheat::ChainId => {
                ctx.cfg.chain_id = word(&args[0]).saturating_to();
                vec![]
            }
            Cheat::Coinbase => {
                ctx.block.beneficiary = addr(&args[0]);
                vec![]
            }
            Cheat::Prevrandao => {
                ctx.block.prevrandao = Some(b32(&args[0]));
                ctx.block.difficulty = word(&args[0]);
                vec![]
            }
            Cheat::Prank | Cheat::StartPrank => {
                self.prank = Some(Prank {
                    prankster: caller,
                    sender: addr(&args[0]),
                    origin: args.get(1).map(addr),
                    depth: ctx.journaled_state.depth,
                    single: *cheat == Cheat::Prank,
                });
                vec![]
            }
            Cheat::StopPrank => {
                self.prank = None;
                vec![]
            }
            Cheat::Deal => {
                let mut acc = ctx
                    .journaled_state
                    .load_account_mut(addr(&args[0]))
                    .map_err(db_err)?
                    .data;
                acc.set_balance(word(&args[1]));
                vec![]
            }
            Cheat::Store => {
                let who = addr(&args[0]);
                ctx.journaled_state.load_account(who).map_err(db_err)?;
                ctx.journaled_state
                    .sstore(who, word(&args[1]), word(&args[2]))
                    .map_err(db_err)?;
                vec![]
            }
            Cheat::Load => {
                let who = addr(&args[0]);
                ctx.journaled_state.load_account(who).map_err(db_err)?;
                let v = ctx
                    .journaled_state
                    .sload(who, word(&args[1]))
                    .map_err(db_err)?
                    .data;
                vec![DynSolValue::FixedBytes(
                    B256::from(v.to_be_bytes::<32>()),
                    32,
                )]
            }
            Cheat::Etch => {
                let who = addr(&args[0]);
                let code = args[1].as_bytes().unwrap_or_default().to_vec();
                ctx.journaled_state.load_account(who).map_err(db_err)?;
                ctx.journaled_state
                    .set_code(who, Bytecode::new_raw(code.into()));
                vec![]
            }
            Cheat::Addr => {
                let key = signing_key(&args[0])?;
                let point = key.verifying_key().to_encoded_point(false);
                let hash = alloy_primitives::keccak256(&point.as_bytes()[1..]);
                vec![DynSolValue::Address(Address::from_slice(&hash[12..]))]
            }
            Cheat::Sign => {
                let key = signing_key(&args[0])?;
                let digest = b32(&args[1]);
                let (sig, recid) = key
                    .sign_prehash_recoverable(digest.as_slice())
                    .map_err(|e| format!("sign: {e}"))?;
                let bytes = sig.to_bytes();
                vec![
                    DynSolValue::Uint(U256::from(27 + recid.to_byte()), 8),
                    DynSolValue::FixedBytes(B256::from_slice(&bytes[..32]), 32),
                    DynSolValue::FixedBytes(B256::from_slice(&bytes[32..]), 32),
                ]
            }
            Cheat::Label => {
                let name = args[1].as_str().unwrap_or_default().to_string();
                self.labels.insert(addr(&args[0]), name);
                vec![]
            }
            Cheat::GetNonce => {
                let who = addr(&args[0]);
                let nonce = ctx
                    .journaled_state
                    .load_account(who)
                    .map_err(db_err)?
                    .data
                    .info
                    .nonce;
                vec![DynSolValue::Uint(U256::from(nonce), 64)]
            }
            Cheat::SetNonce => {
                let mut acc = ctx
                    .journaled_state
                    .load_account_mut(addr(&args[0]))
                    .map_err(db_err)?
                    .data;
                acc.set_nonce(word(&args[1]).saturating_to());
                vec![]
            }
            Cheat::Assume => {
                if word(&args[0]).is_zero() {
                    return Err("vm.assume rejected the input".into());
                }
                vec![]
            }
            Cheat::ToString => vec![DynSolValue::String(to_string(&args[0]))],
            Cheat::Ffi => vec![DynSolValue::Bytes(self.ffi(&args[0])?)],
            Cheat::Assert(a) => {
                check_assertion(*a, &args)?;
                vec![]
            }
        };
        Ok(if out.is_empty() {
            Bytes::new()
        } else {
            DynSolValue::Tuple(out).abi_encode_params().into()
        })
    }

    /// Runs `argv` when `allowFFI` is on; returns its stdout (hex-decoded
    /// when it is hex, as Foundry does).
    fn ffi(&self, argv: &DynSolValue) -> Result<Vec<u8>, String> {
        if !self.allow_ffi {
            return Err(
                "ffi is disabled: set `allowFFI: true` in the config to let contracts run commands"
                    .into(),
            );
        }
        let args: Vec<String> = argv
            .as_array()
            .unwrap_or_default()
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        let (cmd, rest) = args.split_first().ok_or("ffi needs a command")?;
        let out = std::process::Command::new(cmd)
            .args(rest)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("ffi {cmd}: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let trimmed = text.trim();
        Ok(hex::decode(trimmed).unwrap_or_else(|_| trimmed.as_bytes().to_vec()))
    }
}

fn signing_key(v: &DynSolValue) -> Result<k256::ecdsa::SigningKey, String> {
    k256::ecdsa::SigningKey::from_slice(&word(v).to_be_bytes::<32>())
        .map_err(|_| "the private key must be in 1..secp256k1n".to_string())
}

fn to_string(v: &DynSolValue) -> String {
    match v {
        DynSolValue::Address(a) => a.to_checksum(None),
        DynSolValue::Uint(u, _) => u.to_string(),
        DynSolValue::Int(i, _) => i.to_string(),
        DynSolValue::Bool(b) => b.to_string(),
        DynSolValue::FixedBytes(b, _) => format!("{b}"),
        DynSolValue::Bytes(b) => format!("0x{}", hex::encode(b)),
        other => format!("{other:?}"),
    }
}

/// forge-std's assertions (`assertEq`, `assertGt`, …) call these
/// cheatcodes, which revert with forge's message when they fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Assertion {
    True,
    False,
    Eq,
    NotEq,
    Gt,
    Ge,
    Lt,
    Le,
    ApproxEqAbs,
}

/// Every assertion cheatcode signature rudder answers, with its meaning.
fn assertion_signatures() -> Vec<(String, Cheat)> {
    use Assertion::*;
    let mut out = Vec::new();
    let mut both = |base: String, a: Assertion| {
        out.push((format!("{base})"), Cheat::Assert(a)));
        out.push((format!("{base},string)"), Cheat::Assert(a)));
    };
    both("assertTrue(bool".into(), True);
    both("assertFalse(bool".into(), False);
    let scalars = [
        "bool", "uint256", "int256", "address", "bytes32", "string", "bytes",
    ];
    for ty in scalars {
        for (name, a) in [("assertEq", Eq), ("assertNotEq", NotEq)] {
            both(format!("{name}({ty},{ty}"), a);
            both(format!("{name}({ty}[],{ty}[]"), a);
        }
    }
    for ty in ["uint256", "int256"] {
        for (name, a) in [
            ("assertGt", Gt),
            ("assertGe", Ge),
            ("assertLt", Lt),
            ("assertLe", Le),
        ] {
            both(format!("{name}({ty},{ty}"), a);
        }
        both(format!("assertApproxEqAbs({ty},{ty},uint256"), ApproxEqAbs);
    }
    out
}

/// `Ok` when the assertion holds, forge's failure message otherwise.
fn check_assertion(a: Assertion, args: &[DynSolValue]) -> Result<(), String> {
    use std::cmp::Ordering::*;
    let msg = |n: usize| match args.get(n) {
        Some(DynSolValue::String(m)) => m.clone(),
        _ => "assertion failed".into(),
    };
    let cmp = |x: &DynSolValue, y: &DynSolValue| match (x, y) {
        (DynSolValue::Uint(x, _), DynSolValue::Uint(y, _)) => x.cmp(y),
        (DynSolValue::Int(x, _), DynSolValue::Int(y, _)) => x.cmp(y),
        _ => Equal,
    };
    let show = |v: &DynSolValue| match v {
        DynSolValue::Array(items) => {
            format!(
                "[{}]",
                items.iter().map(to_string).collect::<Vec<_>>().join(", ")
            )
        }
        DynSolValue::String(s) => s.clone(),
        v => to_string(v),
    };
    let (holds, text) = match a {
        Assertion::True => (args[0].as_bool() == Some(true), None),
        Assertion::False => (args[0].as_bool() == Some(false), None),
        Assertion::Eq => (args[0] == args[1], Some("!=")),
        Assertion::NotEq => (args[0] != args[1], Some("==")),
        Assertion::Gt => (cmp(&args[0], &args[1]) == Greater, Some("<=")),
        Assertion::Ge => (cmp(&args[0], &args[1]) != Less, Some("<")),
        Assertion::Lt => (cmp(&args[0], &args[1]) == Less, Some(">=")),
        Assertion::Le => (cmp(&args[0], &args[1]) != Greater, Some(">")),
        Assertion::ApproxEqAbs => {
            let delta = match (&args[0], &args[1]) {
                (DynSolValue::Uint(x, _), DynSolValue::Uint(y, _)) => x.abs_diff(*y),
                (DynSolValue::Int(x, _), DynSolValue::Int(y, _)) => {
                    x.wrapping_sub(*y).unsigned_abs()
                }
                _ => U256::ZERO,
            };
            let max = word(&args[2]);
            if delta <= max {
                return Ok(());
            }
            return Err(format!(
                "{}: {} !~= {} (max delta: {max}, real delta: {delta})",
                msg(3),
                show(&args[0]),
                show(&args[1])
            ));
        }
    };
    if holds {
        return Ok(());
    }
    let n = if matches!(a, Assertion::True | Assertion::False) {
        1
    } else {
        2
    };
    Err(match text {
        None => msg(n),
        Some(op) => format!("{}: {} {op} {}", msg(n), show(&args[0]), show(&args[1])),
    })
}

#[cfg(test)]
mod assertion_tests {
    use super::*;
    use alloy_primitives::I256;

    fn u(v: u64) -> DynSolValue {
        DynSolValue::Uint(U256::from(v), 256)
    }

    fn i(v: i64) -> DynSolValue {
        DynSolValue::Int(I256::try_from(v).unwrap(), 256)
    }

    fn s(m: &str) -> DynSolValue {
        DynSolValue::String(m.into())
    }

    #[test]
    fn forge_std_assertions_hold_or_revert_with_forges_message() {
        use Assertion::*;
        assert!(check_assertion(Eq, &[u(1), u(1)]).is_ok());
        assert_eq!(
            check_assertion(Eq, &[u(1), u(2)]).unwrap_err(),
            "assertion failed: 1 != 2"
        );
        assert_eq!(
            check_assertion(Eq, &[u(1), u(2), s("books")]).unwrap_err(),
            "books: 1 != 2"
        );
        assert_eq!(
            check_assertion(NotEq, &[u(3), u(3)]).unwrap_err(),
            "assertion failed: 3 == 3"
        );
        assert!(check_assertion(Gt, &[i(-1), i(-2)]).is_ok());
        assert_eq!(
            check_assertion(Le, &[i(5), i(-5)]).unwrap_err(),
            "assertion failed: 5 > -5"
        );
        assert!(check_assertion(Ge, &[u(7), u(7)]).is_ok());
        assert_eq!(
            check_assertion(Lt, &[u(7), u(7), s("m")]).unwrap_err(),
            "m: 7 >= 7"
        );
        assert_eq!(
            check_assertion(True, &[DynSolValue::Bool(false), s("must")]).unwrap_err(),
            "must"
        );
        assert!(check_assertion(False, &[DynSolValue::Bool(false)]).is_ok());
        let e = check_assertion(ApproxEqAbs, &[u(10), u(12), u(1)]).unwrap_err();
        assert!(e.contains("max delta: 1, real delta: 2"), "{e}");
        assert!(check_assertion(ApproxEqAbs, &[i(-3), i(-1), u(2)]).is_ok());
        let strings = [s("a"), s("b")];
        assert_eq!(
            check_assertion(Eq, &strings).unwrap_err(),
            "assertion failed: a != b"
        );
    }

    #[test]
    fn every_assertion_signature_is_in_the_table_once() {
        let t = table();
        for (sig, _) in assertion_signatures() {
            let f = Function::parse(&sig).unwrap();
            let n = t.iter().filter(|(_, s, _)| *s == f.selector()).count();
            assert_eq!(n, 1, "{sig}");
        }
        // forge-std's most used one, by its well-known selector.
        assert!(
            t.iter()
                .any(|(f, _, _)| f.signature() == "assertEq(uint256,uint256)")
        );
    }
}
