import { useState, type ReactNode } from 'react';
import { BvnStep } from './bvn-step.js';
import { PhoneStep, type ProvenPhone } from './phone-step.js';
import type { SignupAnswer } from './signup-api.js';

type Step =
  | { readonly name: 'phone' }
  | { readonly name: 'bvn'; readonly phone: ProvenPhone }
  | { readonly name: 'welcome'; readonly answer: SignupAnswer };

/** The signup: phone number, then BVN, then the account and its welcome SMS. */
export function SignupApp(): ReactNode {
  const [step, setStep] = useState<Step>({ name: 'phone' });
  return (
    <main>
      <header>
        <h1>Open your Acme account</h1>
        <ol className="steps" aria-label="Progress">
          <li aria-current={step.name === 'phone' ? 'step' : undefined}>Phone</li>
          <li aria-current={step.name === 'bvn' ? 'step' : undefined}>BVN</li>
          <li aria-current={step.name === 'welcome' ? 'step' : undefined}>Done</li>
        </ol>
      </header>
      {step.name === 'phone' ? <PhoneStep onDone={(phone) => setStep({ name: 'bvn', phone })} /> : null}
      {step.name === 'bvn' ? (
        <BvnStep phone={step.phone} onDone={(answer) => setStep({ name: 'welcome', answer })} />
      ) : null}
      {step.name === 'welcome' ? (
        <section className="welcome" data-status="welcome">
          <h2>Welcome to Acme!</h2>
          <p>Your account is ready.</p>
          <p className="muted">
            {step.answer.welcomeSms === 'sent'
              ? `We sent a welcome SMS to ${step.answer.account.phoneNumber}.`
              : 'We could not send your welcome SMS, but your account is ready.'}
          </p>
        </section>
      ) : null}
    </main>
  );
}
