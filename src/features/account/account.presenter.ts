import type { PublicRecord } from '../../http/reply.js';
import type { Account } from '../../storage/store.js';

/**
 * The account record of account/get (spec 2.4): exactly these keys, in this order (strict clients
 * reject unknown keys); numbers are JSON numbers and `userid` a string.
 */
export function accountRecord(a: Account): PublicRecord {
  return {
    userid: a.userid,
    alias: a.alias,
    email: a.email,
    pro: a.pro,
    dateformat: a.prefs.dateformat,
    timezone: a.prefs.timezone,
    hidemonths: a.prefs.hidemonths,
    hotlistpriority: a.prefs.hotlistpriority,
    hotlistduedate: a.prefs.hotlistduedate,
    hotliststar: a.prefs.hotliststar,
    hotliststatus: a.prefs.hotliststatus,
    showtabnums: a.prefs.showtabnums,
    lastedit_task: a.stamps.lastedit_task,
    lastdelete_task: a.stamps.lastdelete_task,
    lastedit_folder: a.stamps.lastedit_folder,
    lastedit_context: a.stamps.lastedit_context,
    lastedit_goal: a.stamps.lastedit_goal,
    lastedit_location: a.stamps.lastedit_location,
    lastedit_note: a.stamps.lastedit_note,
    lastdelete_note: a.stamps.lastdelete_note,
    lastedit_list: a.stamps.lastedit_list,
    lastedit_outline: a.stamps.lastedit_outline,
  };
}
