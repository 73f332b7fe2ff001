"""Traces in, ProtoGraph out.

Read this package in the order an event log travels through it:

1. ``eventlog``   - find Spark event logs on disk and yield their JSON events (any codec, rolling dirs).
2. ``trace``      - turn events into the trace model: applications, queries, jobs, stages, tasks.
3. ``waits``      - per task, the wait (blocked) time and amount acquired for each resource.
4. ``blame``      - RATP, and the blame of culprit stages on victim stages per resource and host.
5. ``protograph`` - the seven levels L0..L6 with blame contributions in seconds.
6. ``writer``     - write one analysis into the graph store in parameterized UNWIND batches.
"""
