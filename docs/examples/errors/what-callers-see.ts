import { createToolInvoker, mapHttpException, ToolError } from 'toolwright';
import { count, hold, pay, reserve, slow, sync } from './tools.js';

// ToolsModule maps HttpException by default; a framework-free invoker is told to. Unexpected
// failures are logged through `logger` (default: console) at `logUnexpectedErrors` ('error').
const invoker = createToolInvoker([reserve, pay, sync, hold, count, slow], {
  mapError: mapHttpException,
});
const call = (name: string, args: unknown) => invoker.invoke(name, args, { transport: 'AGENT' });

console.log(await call('seats_reserve', { seat: 'A1' }));
// { ok: false, error: { code: 'CONFLICT', message: 'Seat A1 is taken.', retryable: false,
//   details: { seat: 'A1' }, hint: 'Call seats_list to pick a free seat.' } }
console.log(await call('seats_reserve', { seat: 7 }));
// { ok: false, error: { code: 'VALIDATION_ERROR',
//   message: 'Invalid input: seat: Invalid input: expected string, received number',
//   retryable: false, details: { target: 'input', issues: [ { path: 'seat', … } ] } } }
console.log(await call('seats_pay', { reservationId: 'r1' }));
// { ok: false, error: { code: 'PAYMENT_REQUIRED', message: 'The card was declined.', retryable: false } }
console.log(await call('seats_sync', {}));
// { ok: false, error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', retryable: false } }
// and, once, on stderr: [toolwright] Tool "seats_sync" failed unexpectedly (call …, AGENT/internal):
//   Error: connect ECONNREFUSED 10.0.0.4:5432, with its stack
console.log(await call('seats_hold', { seat: 'A1' }));
// { ok: false, error: { code: 'CONFLICT', message: 'A1 is already held.', retryable: false } }
console.log(await call('seats_hold', { seat: 'B2' }));
// { ok: false, error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', retryable: false } }
// (logged: the ServiceUnavailableException, with its stack)
console.log(await call('seats_count', {}));
// { ok: false, error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', retryable: false } }
// (logged: "its output does not match its output schema", with the ZodError)
console.log(await call('seats_slow', {}));
// { ok: false, error: { code: 'REQUEST_TIMEOUT',
//   message: 'Tool "seats_slow" did not finish within 50 ms.', retryable: true } }

// A name your own code got wrong is a bug: NOT_FOUND, nothing runs, and any request it
// reaches (a REST route's, a tool call's) is answered as an internal error, listing no names.
await call('seats_reserv', {}).catch((error: ToolError) => console.log(error.code, error.message));
// NOT_FOUND Unknown tool "seats_reserv". Did you mean "seats_reserve"?

// A name a remote caller chose (any source but 'internal') is NOT_FOUND, for that caller.
await invoker
  .invoke('seats_reserv', {}, { transport: 'AGENT', source: 'agent' })
  .catch((error: ToolError) => console.log(error.code, error.message));
// NOT_FOUND Unknown tool "seats_reserv". Did you mean "seats_reserve"?
