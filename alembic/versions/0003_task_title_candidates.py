"""One round trip per title lookup: `task_title_candidates`, the shortlist's steps in the database.

`TaskRepository.candidates` used to send up to four statements for one reference (an exact title
and the owner's task count; titles holding its words; all of them but one; trigrams), each a round
trip and a statement for SQLAlchemy to run: over half of a lookup's time at 100k tasks. This
function takes the same steps server-side, in order, and stops at the first that finds titles:

1. `exact_first`: the tasks titled `ref` (lowercased; the btree on (user_id, lower(title))), which
   decide alone;
2. when the owner has at most `all_up_to` tasks, all of them (the resolver scores them in process);
3. `words_first`: titles holding every word of `ref` as full text search reads words (so "reports"
   finds "report"; the owner's word index of migration 0002): plurals, case, a part of a longer
   title; then, for 3 to 12 words, titles holding all of them but one: a typo in one word;
4. titles close to `ref` by trigrams, as a whole or in part: a typo in a short reference.

Each row names its step (`source`); a step that ends the lookup with no titles returns one row of
NULLs naming it. Shortlists hold at most `lim` titles, closest first (the title equal to `ref`; then
for word steps the length nearest its own, for trigrams the most similar).

The function's SET clauses hold only while it runs: the trigram thresholds (loose enough to keep
typos, plurals and a reference inside a longer title, which the resolver then scores); the price of
an operator (the planner prices a trigram comparison, some 10 us, like an integer one, so with 10k
rows it would filter them all, 150 ms, rather than read the trigram index, 3 ms); a plan made for
this owner each time (a plan cached for any owner guesses an owner has few tasks and would read a
100k-task owner's rows through the owner's index, filtering each); and no parallel worker (whose
start alone takes longer than the lookup).

Revision ID: 0003_task_title_candidates
Revises: 0002_task_title_trgm
Create Date: 2026-11-23
"""

from __future__ import annotations

from alembic import op

revision = "0003_task_title_candidates"
down_revision = "0002_task_title_trgm"
branch_labels = None
depends_on = None

FUNCTION = "task_title_candidates"
SIGNATURE = "owner text, ref text, all_up_to integer, lim integer, exact_first boolean, words_first boolean"

CANDIDATES = f"""
CREATE OR REPLACE FUNCTION {FUNCTION}({SIGNATURE})
RETURNS TABLE (id uuid, title text, version integer, source text)
LANGUAGE plpgsql STABLE
SET pg_trgm.similarity_threshold = 0.5
SET pg_trgm.word_similarity_threshold = 0.6
SET cpu_operator_cost = 0.1
SET plan_cache_mode = force_custom_plan
SET max_parallel_workers_per_gather = 0
AS $function$
#variable_conflict use_column
DECLARE
    wanted text[];
    words integer;
    all_but_one text;
BEGIN
    IF exact_first THEN
        RETURN QUERY SELECT t.id, t.title::text, t.version, 'exact'::text
            FROM tasks t WHERE t.user_id = owner AND lower(t.title) = ref;
        IF FOUND THEN RETURN; END IF;
    END IF;

    IF (SELECT count(*) FROM (SELECT 1 FROM tasks t WHERE t.user_id = owner LIMIT all_up_to + 1) s) <= all_up_to THEN
        RETURN QUERY SELECT t.id, t.title::text, t.version, 'all'::text FROM tasks t WHERE t.user_id = owner;
        IF NOT FOUND THEN RETURN QUERY SELECT NULL::uuid, NULL::text, NULL::integer, 'all'::text; END IF;
        RETURN;
    END IF;

    IF words_first THEN
        -- NULL for a reference of stop words only: it matches nothing, and the trigrams decide.
        wanted := task_title_words(owner, ref);
        RETURN QUERY SELECT t.id, t.title::text, t.version, 'words'::text
            FROM tasks t WHERE t.user_id = owner AND task_title_words(t.user_id, t.title) @> wanted
            ORDER BY lower(t.title) = ref DESC, abs(length(t.title) - length(ref)), t.id LIMIT lim;
        IF FOUND THEN RETURN; END IF;

        -- One `@>` per word left out, OR-ed: each reads the word index (the planner sees the values).
        words := coalesce(cardinality(wanted), 0);
        IF words BETWEEN 3 AND 12 THEN
            SELECT string_agg(format('task_title_words(t.user_id, t.title) @> ($1[1:%s] || $1[%s:])', i - 1, i + 1), ' OR ')
                INTO all_but_one FROM generate_series(1, words) AS i;
            RETURN QUERY EXECUTE
                'SELECT t.id, t.title::text, t.version, ''all_but_one_word''::text FROM tasks t '
                || 'WHERE t.user_id = $2 AND (' || all_but_one || ') '
                || 'ORDER BY lower(t.title) = $3 DESC, abs(length(t.title) - length($3)), t.id LIMIT $4'
                USING wanted, owner, ref, lim;
            IF FOUND THEN RETURN; END IF;
        END IF;
    END IF;

    RETURN QUERY SELECT t.id, t.title::text, t.version, 'trigrams'::text
        FROM tasks t
        WHERE t.user_id = owner AND (lower(t.title) = ref OR lower(t.title) % ref OR ref <% lower(t.title))
        ORDER BY lower(t.title) = ref DESC,
                 greatest(similarity(lower(t.title), ref), word_similarity(ref, lower(t.title))) DESC,
                 similarity(lower(t.title), ref) DESC, t.id
        LIMIT lim;
    IF NOT FOUND THEN RETURN QUERY SELECT NULL::uuid, NULL::text, NULL::integer, 'trigrams'::text; END IF;
END
$function$
"""


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(CANDIDATES)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(f"DROP FUNCTION IF EXISTS {FUNCTION}({SIGNATURE})")
