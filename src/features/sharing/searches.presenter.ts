import type { ItemError } from '../../errors.js';
import { errorNode, type ApiBody } from '../../http/reply.js';
import type { PublicRecord, XmlNode } from '../../http/xml.js';
import type { Rule } from './search-rules.js';
import { rulesObject } from './search-rules.js';
import type { ShownSearch } from './searches.service.js';

/**
 * tasks/search.php as the hosted service documents it: `[{"id","name","bool","search":{"root":[…],
 * "1":[…]}}]`. In XML a numbered group cannot be an element name: it is `<group id="1">` after
 * `<root>` (docs/sharing.md).
 */
export function searchRecord(s: ShownSearch): PublicRecord {
  const search: Record<string, PublicRecord[]> = {};
  for (const [k, rules] of Object.entries(rulesObject(s.rules))) search[k] = rules.map(ruleRecord);
  return { id: s.id, name: s.name, bool: s.bool, search };
}

function ruleRecord(r: Rule): PublicRecord {
  return { field: r.field, type: r.type, value: r.value };
}

function ruleNodes(rules: readonly Rule[]): XmlNode[] {
  return rules.map((r) => ({ name: 'rule', record: ruleRecord(r) }));
}

function searchNode(s: ShownSearch): XmlNode {
  return {
    name: 'search',
    children: [
      { name: 'id', text: s.id },
      { name: 'name', text: s.name },
      { name: 'bool', text: s.bool },
      { name: 'root', children: ruleNodes(s.rules.root) },
      ...s.rules.groups.map(([k, rules]): XmlNode => ({ name: 'group', attrs: [['id', k]], children: ruleNodes(rules) })),
    ],
  };
}

/** The searches, or the results of a write call (with inline errors), in either format. */
export function searchesBody(items: ReadonlyArray<ShownSearch | ItemError>): ApiBody {
  return {
    json: items.map((it) => ('errorCode' in it ? it : searchRecord(it))),
    xml: () => ({ name: 'searches', children: items.map((it) => ('errorCode' in it ? errorNode(it) : searchNode(it))) }),
  };
}

export function deletedSearchesBody(items: ReadonlyArray<{ id: number } | ItemError>): ApiBody {
  return {
    json: items,
    xml: () => ({ name: 'deleted', children: items.map((r) => ('errorCode' in r ? errorNode(r) : { name: 'id', text: r.id })) }),
  };
}
