//! Checks run on a copy of the state: a property, an invariant, an
//! optimization value or a spec's view is a transaction whose writes,
//! logs, balance moves and nonce bump are undone once its answer is read,
//! as Echidna and forge run them. A property that writes (a harness that
//! caches, a getter that is not `view`) then sees the same state the next
//! time it is checked, and cannot fail for a write of its own.
//!
//! revm's mainnet handler commits a transaction's journal at its end; this
//! handler runs every phase the same way and discards the journal instead
//! (revm's own path for a failed transaction), so the output, the gas and
//! the logs are those of the real call.

use revm::context::ContextSetters;
use revm::context::result::{ExecutionResult, HaltReason};
use revm::context_interface::context::take_error;
use revm::context_interface::result::ResultGas;
use revm::context_interface::{ContextTr, JournalTr, LocalContextTr};
use revm::handler::{EvmTr, ExecuteEvm, FrameResult, Handler, post_execution};
use revm::inspector::InspectorHandler;
use revm::interpreter::interpreter::EthInterpreter;

/// Runs `env` on `evm` (under its inspector when `inspect`), its state
/// changes discarded at its end. Never inlined: the call path's
/// interpreter loop stays as it was compiled without it (the cost guard
/// counts its instructions).
#[inline(never)]
pub(super) fn run_discarding(
    evm: &mut super::Evm,
    env: revm::context::TxEnv,
    inspect: bool,
) -> Result<ExecutionResult<HaltReason>, <super::Evm as ExecuteEvm>::Error> {
    evm.ctx.set_tx(env);
    if inspect {
        Discarding.inspect_run(evm)
    } else {
        Discarding.run(evm)
    }
}

/// The mainnet handler, the transaction's state changes discarded at its end.
pub(super) struct Discarding;

impl Handler for Discarding {
    type Evm = super::Evm;
    type Error = <super::Evm as ExecuteEvm>::Error;
    type HaltReason = HaltReason;

    fn execution_result(
        &mut self,
        evm: &mut Self::Evm,
        result: FrameResult,
        result_gas: ResultGas,
    ) -> Result<ExecutionResult<HaltReason>, Self::Error> {
        take_error::<Self::Error, _>(evm.ctx().error())?;
        // The logs are taken from the journal before it is discarded.
        let out = post_execution::output(evm.ctx(), result, result_gas);
        evm.ctx().journal_mut().discard_tx();
        evm.ctx().local_mut().clear();
        evm.frame_stack().clear();
        Ok(out)
    }
}

impl InspectorHandler for Discarding {
    type IT = EthInterpreter;
}
