"""One step of a python-caldav client against a CalDAV server, for the end-to-end tests.

Usage: python3 python-caldav.py URL EMAIL PASSWORD STEP [ARG...]; prints one JSON object.
Steps: discover | todos | add UID SUMMARY | edit UID SUMMARY | complete UID | delete UID
       | sync TOKEN_FILE | make NAME
The library does discovery from the server's root, as an app given only the server's address does.
"""
import json
import sys

import caldav

url, email, password, step, *args = sys.argv[1:]
client = caldav.DAVClient(url=url, username=email, password=password)
principal = client.principal()


def calendar(name="Tasks"):
    for c in principal.calendars():
        if c.name == name:
            return c
    raise SystemExit(f"no calendar named {name}")


def summary(todo):
    return str(todo.icalendar_instance.walk("VTODO")[0]["SUMMARY"])


out = {}
if step == "discover":
    cals = principal.calendars()
    out["calendars"] = sorted(c.name for c in cals)
    out["components"] = calendar().get_supported_components()
elif step == "todos":
    out["todos"] = sorted(summary(t) for t in calendar().todos())
    out["all"] = sorted(summary(t) for t in calendar().todos(include_completed=True))
elif step == "add":
    uid, text = args
    ical = "\r\n".join([
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//e2e//python-caldav//EN",
        "BEGIN:VTODO", f"UID:{uid}", "DTSTAMP:20260101T000000Z", f"SUMMARY:{text}",
        "DUE;VALUE=DATE:20270115", "PRIORITY:1", "END:VTODO", "END:VCALENDAR", "",
    ])
    out["url"] = str(calendar().save_todo(ical).url)
elif step == "edit":
    uid, text = args
    todo = calendar().todo_by_uid(uid)
    todo.icalendar_instance.walk("VTODO")[0]["SUMMARY"] = text
    todo.save()
    out["url"] = str(todo.url)
elif step == "complete":
    todo = calendar().todo_by_uid(args[0])
    todo.complete()
    out["url"] = str(todo.url)
elif step == "delete":
    todo = calendar().todo_by_uid(args[0])
    todo.delete()
    out["url"] = str(todo.url)
elif step == "sync":
    token_file = args[0]
    try:
        with open(token_file) as f:
            token = f.read().strip() or None
    except FileNotFoundError:
        token = None
    objects = calendar().objects_by_sync_token(sync_token=token, load_objects=True)
    out["changed"] = sorted(str(o.url).rsplit("/", 1)[-1] for o in objects if o.data)
    out["gone"] = sorted(str(o.url).rsplit("/", 1)[-1] for o in objects if not o.data)
    with open(token_file, "w") as f:
        f.write(str(objects.sync_token))
elif step == "make":
    made = principal.make_calendar(name=args[0], supported_calendar_component_set=["VTODO"])
    out["url"] = str(made.url)
else:
    raise SystemExit(f"unknown step {step}")
print(json.dumps(out))
