import type { ToolGuard, ToolHooks, ToolPrincipal } from 'toolwright';

const principalOf = (context: Record<string, unknown>) =>
  context.principal as ToolPrincipal | undefined;

/** Keycloak puts realm roles in `realm_access.roles`; other servers name them differently. */
function hasRole(principal: ToolPrincipal | undefined, role: string): boolean {
  const access = principal?.claims?.realm_access as { roles?: unknown } | undefined;
  return Array.isArray(access?.roles) && access.roles.includes(role);
}

/**
 * Roles are not scopes: a guard reads them from the token's claims. `canList` receives the raw
 * context, principal included; it hides the tool and, checked on every call, refuses it too.
 */
export const financeVoidsInvoices: ToolGuard = {
  canList: (tool, context) =>
    tool.name !== 'billing_void_invoice' || hasRole(principalOf(context), 'finance'),
  canActivate: () => true,
};

/** Hooks see the raw context too: audit who called, never a token (the principal has none). */
export const auditHooks: ToolHooks = {
  afterToolCall: ({ name, context, result }) => {
    const principal = principalOf(context);
    console.log(name, principal?.subject ?? principal?.clientId ?? 'in-process', result.ok);
  },
};
