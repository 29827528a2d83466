import { defineToolRegistry } from 'toolwright';
import { InvoiceTools } from '../getting-started/invoice.tools.js';
import { ping } from '../tools/runtime-tools.js';
import { registry } from './app.module.js';

// Every default, composed away or not, in declaration order.
console.log(registry.declared);
// ['billing_list_invoices', 'billing_get_invoice', 'billing_void_invoice', 'health_ping',
//  'notes_add_note', 'notes_list_notes']

// Exactly what the module mounts, in declaration order.
console.log(registry.build().names);
// ['billing_list_invoices', 'billing_get_invoice', 'health_ping', 'notes_add_note',
//  'notes_list_notes']

// Mistakes fail at once, naming what exists.
try {
  defineToolRegistry({ defaults: [InvoiceTools, ping] }).disable('billing_delete_invoice');
} catch (error) {
  console.log((error as Error).message);
  // Tool registry disable("billing_delete_invoice") names no default; declared:
  // billing_get_invoice, billing_list_invoices, billing_void_invoice, health_ping.
}
