/**
 * The dial-in page: the user types a number, the page shows the USSD code to dial (a `tel:` link on a phone),
 * and the flow's live view turns to verified when the carrier reports the dial.
 *
 * @module
 */
import { StrictMode, useState, type FormEvent, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { createFlowClient } from '@verikit/client';
import { FlowClientProvider, UssdInstructions, useFlow, useStartFlow } from '@verikit/react';

function DialIn(): ReactNode {
  const [phoneNumber, setPhoneNumber] = useState('');
  const { start, view: started, error } = useStartFlow();
  const flow = useFlow(started?.id, started === undefined ? undefined : { initialView: started });
  const view = flow.view ?? started;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void start({ kind: 'dial-in', phoneNumber });
  };
  if (view === undefined)
    return (
      <form onSubmit={submit}>
        <label>
          Phone number (with country code)
          <input type="tel" value={phoneNumber} onChange={(event) => setPhoneNumber(event.target.value)} />
        </label>
        <button type="submit">Confirm by dialling</button>
        {error === undefined ? null : <p role="alert">{error.message}</p>}
      </form>
    );
  if (view.status === 'verified') return <h1>Number confirmed</h1>;
  if (view.status === 'expired') return <p role="alert">The code expired: reload to get a new one.</p>;
  return (
    <section>
      <h1>Dial to confirm</h1>
      <UssdInstructions ussdCode={view.ussdCode} id="dial" />
    </section>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <FlowClientProvider client={createFlowClient({ baseUrl: '/api/verify' })}>
      <DialIn />
    </FlowClientProvider>
  </StrictMode>,
);
