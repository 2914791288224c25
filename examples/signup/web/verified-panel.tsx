import { useState, type ReactNode } from 'react';
import { FlowClientError } from '@verikit/client';
import { useFlowClient, useMessage } from '@verikit/react';
import { errorId } from './messages.js';
import type { Proof } from './signup-api.js';
import { StepHeading } from '@verikit/example-page-parts';

/** Props of {@link VerifiedPanel}. */
export interface VerifiedPanelProps {
  flowId: string;
  /** "Phone number verified". */
  title: string;
  /** The label of the button that moves on. */
  action: string;
  /** Called with the proof of the flow: the server redeems it at signup. */
  onProof: (proof: Proof) => void | Promise<void>;
}

/**
 * A verified flow, and the way on: the button asks the server for the flow's proof (the page
 * never tells the server "it is verified": the server issues the proof and redeems it itself).
 */
export function VerifiedPanel({ flowId, title, action, onProof }: VerifiedPanelProps): ReactNode {
  const client = useFlowClient();
  const message = useMessage();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const next = async (): Promise<void> => {
    setPending(true);
    setError(undefined);
    try {
      // The client sends the flow secret it kept when the flow started.
      await onProof(await client.proof(flowId));
    } catch (failure) {
      setError(message(FlowClientError.isInstance(failure) ? errorId(failure) : 'verikit.error.unknown'));
    } finally {
      setPending(false);
    }
  };
  return (
    <>
      <StepHeading className="verified">✓ {title}</StepHeading>
      <button type="button" className="primary" disabled={pending} onClick={() => void next()}>
        {pending ? message('flow.wait') : action}
      </button>
      {error === undefined ? null : (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </>
  );
}
