import { useState, type ReactNode } from 'react';
import { useMessage } from '@verikit/react';
import { BvnStep } from './bvn-step.js';
import { PhoneStep, type ProvenPhone } from './phone-step.js';
import type { SignupAnswer } from './signup-api.js';
import { StepHeading } from '@verikit/example-page-parts';

type Step =
  | { readonly name: 'phone' }
  | { readonly name: 'bvn'; readonly phone: ProvenPhone }
  | { readonly name: 'welcome'; readonly answer: SignupAnswer };

/** The signup: phone number, then BVN, then the account and its welcome SMS. */
export function SignupApp(): ReactNode {
  const message = useMessage();
  const [step, setStep] = useState<Step>({ name: 'phone' });
  return (
    <main>
      <header>
        <h1>{message('signup.title')}</h1>
        <ol className="steps" aria-label={message('signup.progress')}>
          <li aria-current={step.name === 'phone' ? 'step' : undefined}>{message('signup.step.phone')}</li>
          <li aria-current={step.name === 'bvn' ? 'step' : undefined}>{message('signup.step.bvn')}</li>
          <li aria-current={step.name === 'welcome' ? 'step' : undefined}>{message('signup.step.done')}</li>
        </ol>
      </header>
      {step.name === 'phone' ? <PhoneStep onDone={(phone) => setStep({ name: 'bvn', phone })} /> : null}
      {step.name === 'bvn' ? (
        <BvnStep phone={step.phone} onDone={(answer) => setStep({ name: 'welcome', answer })} />
      ) : null}
      {step.name === 'welcome' ? (
        <section className="welcome" data-status="welcome">
          <StepHeading>{message('signup.welcome.title')}</StepHeading>
          <p>{message('signup.welcome.ready')}</p>
          <p className="muted">
            {step.answer.welcomeSms === 'sent'
              ? message('signup.welcome.sms', { phone: step.answer.account.phoneNumber })
              : message('signup.welcome.noSms')}
          </p>
        </section>
      ) : null}
    </main>
  );
}
