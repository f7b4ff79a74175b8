import { joinedBytes } from '../../http/joined-bytes.js';
import { XML_DECLARATION, type TextBody } from '../../http/reply.js';
import { escapeAttr } from '../../http/xml.js';
import type { RecordForm } from '../../storage/store.js';
import type { FeedChange, FeedPage } from './changes.service.js';

/**
 * /3/sync/changes.php's answer (docs/sync.md). JSON: `{"cursor","more","changes":[{kind, op, id,
 * record?}…]}`; XML: `<changes cursor more>` with a `<change>` per change holding `kind`, `op`,
 * `id` and, for an upsert, `<record>` around the kind's own element. The records come written in
 * the form asked for (changes.service.ts); only that form can be sent.
 */
export function feedBody(page: FeedPage, form: RecordForm): TextBody {
  const more = page.more ? 1 : 0;
  const json = (): Buffer =>
    joinedBytes(`{"cursor":${JSON.stringify(page.cursor)},"more":${more},"changes":[`, page.changes.map(jsonChange), ',', ']}');
  const xml = (): Buffer =>
    joinedBytes(`${XML_DECLARATION}<changes cursor="${escapeAttr(page.cursor)}" more="${more}">`, page.changes.map(xmlChange), '', '</changes>');
  const wrong = (): never => {
    throw new Error(`the change feed's records are written in ${form}`);
  };
  return { text: { json: form === 'json' ? json : wrong, xml: form === 'xml' ? xml : wrong } };
}

function jsonChange(c: FeedChange): string {
  const head = `{"kind":"${c.kind}","op":"${c.op}","id":${JSON.stringify(c.id)}`;
  return c.record === undefined ? `${head}}` : `${head},"record":${c.record}}`;
}

function xmlChange(c: FeedChange): string {
  const head = `<change><kind>${c.kind}</kind><op>${c.op}</op><id>${escapeAttr(c.id)}</id>`;
  return c.record === undefined ? `${head}</change>` : `${head}<record>${c.record}</record></change>`;
}
