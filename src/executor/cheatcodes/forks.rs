//! Foundry's fork cheatcodes, as a suite's `setUp()` (or a constructor)
//! calls them: `createFork`, `createSelectFork`, `selectFork`, `rollFork`,
//! `activeFork`, with a URL or an alias of the project's `[rpc_endpoints]`
//! (`${VAR}` read from the environment). The fork selected when set-up
//! ends is the chain every sequence runs on ([`crate::executor::fork`]);
//! during fuzzing only `activeFork` answers (one fork per campaign).

use super::*;
use crate::executor::fork::{Backend, ForkSource};
use std::path::PathBuf;
use std::sync::Arc;

/// What set-up may fork, and what it forked.
#[derive(Clone, Debug, Default)]
pub struct ForkBook {
    /// `[rpc_endpoints]`: alias and URL (as written, `${VAR}` unexpanded).
    pub endpoints: Arc<Vec<(String, String)>>,
    /// Where fork caches live (`rpcCacheDir`).
    pub cache_dir: PathBuf,
    /// Whether the target is being set up (the fork cheatcodes run).
    pub setting_up: bool,
    /// The forks made so far: (URL, source), by fork id.
    forks: Vec<(String, Arc<ForkSource>)>,
    /// The selected fork's id.
    pub active: Option<u64>,
}

impl ForkBook {
    /// The book of a target being set up.
    pub fn for_setup(endpoints: Vec<(String, String)>, cache_dir: PathBuf) -> Self {
        ForkBook {
            endpoints: Arc::new(endpoints),
            cache_dir,
            setting_up: true,
            ..ForkBook::default()
        }
    }

    /// `name` as a URL: an alias of `[rpc_endpoints]`, else itself; with
    /// `${VAR}` replaced by the variable's value.
    fn url(&self, name: &str) -> Result<String, String> {
        let raw = self
            .endpoints
            .iter()
            .find(|(alias, _)| alias == name)
            .map_or(name, |(_, url)| url.as_str());
        let mut out = String::new();
        let mut rest = raw;
        while let Some(i) = rest.find("${") {
            out.push_str(&rest[..i]);
            let Some(j) = rest[i..].find('}') else {
                return Err(format!("`{raw}`: an unclosed ${{…}}"));
            };
            let var = &rest[i + 2..i + j];
            let value = std::env::var(var)
                .map_err(|_| format!("`{raw}` reads ${{{var}}}, which is not set"))?;
            out.push_str(&value);
            rest = &rest[i + j + 1..];
        }
        out.push_str(rest);
        if out.starts_with("http://") || out.starts_with("https://") {
            Ok(out)
        } else {
            let known: Vec<&str> = self.endpoints.iter().map(|(a, _)| a.as_str()).collect();
            Err(format!(
                "`{name}` is neither an http(s) URL nor an alias of [rpc_endpoints] ({})",
                if known.is_empty() {
                    "the project's foundry.toml has none".to_string()
                } else {
                    format!("known: {}", known.join(", "))
                }
            ))
        }
    }
}

impl Cheatcodes {
    /// Runs a fork cheatcode.
    pub(super) fn fork_cheat(
        &mut self,
        ctx: &mut Ctx,
        cheat: Cheat,
        args: &[DynSolValue],
    ) -> Result<Vec<DynSolValue>, String> {
        if cheat == Cheat::ActiveFork {
            return self
                .forks
                .active
                .map(|id| vec![DynSolValue::Uint(U256::from(id), 256)])
                .ok_or_else(|| "activeFork: no fork is active".to_string());
        }
        if !self.forks.setting_up {
            return Err(
                "fork cheatcodes run in setUp() and constructors: rudder fuzzes the one fork selected there"
                    .into(),
            );
        }
        let id = match cheat {
            Cheat::CreateFork | Cheat::CreateSelectFork => {
                let name = args[0].as_str().unwrap_or_default();
                let url = self
                    .forks
                    .url(name)
                    .map_err(|e| format!("createFork: {e}"))?;
                let block = args.get(1).map(|b| word(b).saturating_to::<u64>());
                self.open(url, block)?
            }
            Cheat::SelectFork => self.known(word(&args[0]))?,
            Cheat::RollFork => {
                let (id, block) = match args {
                    [block] => (
                        self.forks.active.ok_or("rollFork: no fork is active")?,
                        block,
                    ),
                    [id, block] => (self.known(word(id))? as u64, block),
                    _ => return Err("rollFork: bad arguments".into()),
                };
                let url = self.forks.forks[id as usize].0.clone();
                let source = ForkSource::open(
                    &url,
                    Some(word(block).saturating_to()),
                    &self.forks.cache_dir,
                )
                .map_err(|e| format!("rollFork: {e}"))?;
                self.forks.forks[id as usize].1 = source;
                if self.forks.active != Some(id) {
                    return Ok(vec![]);
                }
                id as usize
            }
            _ => unreachable!("not a fork cheatcode"),
        };
        if cheat != Cheat::CreateFork {
            self.select(ctx, id);
        }
        Ok(match cheat {
            Cheat::CreateFork | Cheat::CreateSelectFork => {
                vec![DynSolValue::Uint(U256::from(id), 256)]
            }
            _ => vec![],
        })
    }

    fn open(&mut self, url: String, block: Option<u64>) -> Result<usize, String> {
        let source = ForkSource::open(&url, block, &self.forks.cache_dir)
            .map_err(|e| format!("createFork: {e}"))?;
        self.forks.forks.push((url, source));
        Ok(self.forks.forks.len() - 1)
    }

    fn known(&self, id: U256) -> Result<usize, String> {
        usize::try_from(id)
            .ok()
            .filter(|i| *i < self.forks.forks.len())
            .ok_or_else(|| {
                format!(
                    "fork {id} was not created (forks made: {})",
                    self.forks.forks.len()
                )
            })
    }

    /// Reads below the state from fork `id` from now on; its block values
    /// become the block's.
    fn select(&mut self, ctx: &mut Ctx, id: usize) {
        let source = self.forks.forks[id].1.clone();
        let b = source.block();
        ctx.journaled_state.database.db = Backend::Fork(source);
        ctx.block.number = U256::from(b.number);
        ctx.block.timestamp = U256::from(b.timestamp);
        ctx.block.basefee = b.base_fee;
        ctx.block.beneficiary = b.coinbase;
        ctx.cfg.chain_id = b.chain_id;
        self.forks.active = Some(id as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fork_name_is_an_alias_of_rpc_endpoints_or_a_url_with_variables_read() {
        let book = ForkBook::for_setup(
            vec![
                ("main".into(), "https://node.example/${PATH}/x".into()),
                (
                    "broken".into(),
                    "https://node.example/${RUDDER_NO_SUCH_VARIABLE}".into(),
                ),
            ],
            PathBuf::new(),
        );
        let path = std::env::var("PATH").unwrap();
        assert_eq!(
            book.url("main").unwrap(),
            format!("https://node.example/{path}/x")
        );
        assert_eq!(
            book.url("http://127.0.0.1:8545").unwrap(),
            "http://127.0.0.1:8545"
        );
        let e = book.url("broken").unwrap_err();
        assert!(
            e.contains("RUDDER_NO_SUCH_VARIABLE") && e.contains("not set"),
            "{e}"
        );
        let e = book.url("mainnet").unwrap_err();
        assert!(e.contains("known: main, broken"), "{e}");
    }
}
