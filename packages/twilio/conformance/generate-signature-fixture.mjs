// Run once in a throw-away folder with twilio-node installed (npm i twilio): prints the signature fixture.
import { createRequire } from 'node:module';
import { parse } from 'node:querystring';
import twilio from 'twilio';

const require = createRequire(import.meta.url);
const version = require('twilio/package.json').version;
const token = 'fixture-auth-token-0123456789abcdef';
const form = 'CallSid=CA0123&CallStatus=completed&To=%2B2348031230001';
const json = '{"event":"status","sid":"VE0123"}';
const hash = twilio.getExpectedBodyHash(json);
const cases = [
  [
    'same URL, https, no port',
    'https://app.example.com/twilio/status?flow=abc',
    'https://app.example.com/twilio/status?flow=abc',
    form,
  ],
  [
    'signed with :443, configured without',
    'https://app.example.com:443/twilio/status',
    'https://app.example.com/twilio/status',
    form,
  ],
  [
    'signed without port, configured with :443',
    'https://app.example.com/twilio/status',
    'https://app.example.com:443/twilio/status',
    form,
  ],
  [
    'http signed with :80, configured without',
    'http://app.example.com:80/twilio/status',
    'http://app.example.com/twilio/status',
    form,
  ],
  [
    'http signed without port, configured with :80',
    'http://app.example.com/twilio/status',
    'http://app.example.com:80/twilio/status',
    form,
  ],
  [
    'non-default port on both sides',
    'https://app.example.com:8443/twilio/status',
    'https://app.example.com:8443/twilio/status',
    form,
  ],
  [
    'signed without port, configured with :8443',
    'https://app.example.com/twilio/status',
    'https://app.example.com:8443/twilio/status',
    form,
  ],
  [
    'signed with :8443, configured without',
    'https://app.example.com:8443/twilio/status',
    'https://app.example.com/twilio/status',
    form,
  ],
  [
    'signed with :443, configured with :8443',
    'https://app.example.com:443/twilio/status',
    'https://app.example.com:8443/twilio/status',
    form,
  ],
  [
    'repeated parameter, values in order',
    'https://app.example.com/cb',
    'https://app.example.com/cb',
    'To=%2B2341&To=%2B2342&From=x',
  ],
  [
    'repeated parameter, values out of order',
    'https://app.example.com/cb',
    'https://app.example.com/cb',
    'To=%2B2342&To=%2B2341&From=x',
  ],
  [
    'repeated parameter, the same value twice',
    'https://app.example.com/cb',
    'https://app.example.com/cb',
    'Tag=x&Tag=x&From=y',
  ],
  [
    'repeated parameter and a port variant',
    'https://app.example.com:443/cb?x=1',
    'https://app.example.com/cb?x=1',
    'b=2&a=9&b=1',
  ],
  [
    'names sorted by code unit (upper case first)',
    'https://app.example.com/cb',
    'https://app.example.com/cb',
    'b=1&B=2&a=3&_=4',
  ],
  [
    'non-ASCII values',
    'https://app.example.com/cb',
    'https://app.example.com/cb',
    'Body=%C3%A9t%C3%A9+%F0%9F%98%80&To=x',
  ],
  ['empty body', 'https://app.example.com/cb?only=query', 'https://app.example.com/cb?only=query', ''],
  [
    'another auth token',
    'https://app.example.com/twilio/status',
    'https://app.example.com/twilio/status',
    form,
    'another-token-0000000000000000000',
  ],
  [
    'a parameter value changed after signing',
    'https://app.example.com/twilio/status',
    'https://app.example.com/twilio/status',
    form,
    undefined,
    form.replace('completed', 'failed'),
  ],
  ['another path', 'https://app.example.com/twilio/status', 'https://app.example.com/twilio/other', form],
  ['another host', 'https://app.example.com/twilio/status', 'https://evil.example.com/twilio/status', form],
  [
    'JSON body with bodySHA256, same URL',
    `https://app.example.com/cb?bodySHA256=${hash}`,
    `https://app.example.com/cb?bodySHA256=${hash}`,
    json,
  ],
  [
    'JSON body with bodySHA256, port variant',
    `https://app.example.com:443/cb?bodySHA256=${hash}`,
    `https://app.example.com/cb?bodySHA256=${hash}`,
    json,
  ],
  [
    'JSON body changed after signing',
    `https://app.example.com/cb?bodySHA256=${hash}`,
    `https://app.example.com/cb?bodySHA256=${hash}`,
    json,
    undefined,
    json.replace('status', 'other'),
  ],
  [
    'query with an apostrophe, configured escaped',
    "https://app.example.com/cb?name=O'Brien",
    'https://app.example.com/cb?name=O%27Brien',
    form,
  ],
  [
    'query with a space, signed escaped, configured raw',
    'https://app.example.com/cb?name=a%20b',
    'https://app.example.com/cb?name=a b',
    form,
  ],
  ['IPv6 host, signed with :443', 'https://[::1]:443/cb', 'https://[::1]/cb', form],
];
const out = cases.map(([name, signedUrl, url, body, signingToken = token, receivedBody = body]) => {
  const isJson = url.includes('bodySHA256');
  const signature = twilio.getExpectedTwilioSignature(signingToken, signedUrl, isJson ? {} : parse(body));
  const valid = isJson
    ? twilio.validateRequestWithBody(token, signature, url, receivedBody)
    : twilio.validateRequest(token, signature, url, parse(receivedBody));
  return { name, signedUrl, url, body: receivedBody, signature, valid };
});
console.log(
  JSON.stringify(
    {
      source: `twilio-node ${version} (npm package "twilio"): signature by getExpectedTwilioSignature over signedUrl, "valid" by validateRequest (form) or validateRequestWithBody (bodySHA256) for url; form parameters parsed with node:querystring as an Express app would`,
      version,
      date: new Date().toISOString().slice(0, 10),
      authToken: token,
      cases: out,
    },
    null,
    2,
  ),
);
