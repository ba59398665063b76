// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - npuctl's --json output (json.h): one json-c object per record,
 * members in the order the guide lists them; json-c escapes and separates.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sys/socket.h>
#include "../../lib/npuflow_names.h"
#include "json.h"

#define NPUCTL_JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* An object being built: a member that could not be made spoils it. */
struct jobj {
	struct json_object *o;
	int bad;
};

static struct jobj jobj_new(void)
{
	struct jobj j = { .o = json_object_new_object() };

	j.bad = !j.o;
	return j;
}

/* Add @v as member @key (a string that outlives the object: literals, name tables). */
static void put(struct jobj *j, const char *key, struct json_object *v)
{
	const unsigned int opts = JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT;

	if (j->bad || !v || json_object_object_add_ex(j->o, key, v, opts)) {
		json_object_put(v);
		j->bad = 1;
	}
}

static void put_u64(struct jobj *j, const char *key, unsigned long long v)
{
	put(j, key, json_object_new_uint64(v));
}

static void put_i64(struct jobj *j, const char *key, long long v)
{
	put(j, key, json_object_new_int64(v));
}

static void put_str(struct jobj *j, const char *key, const char *s)
{
	put(j, key, json_object_new_string(s));
}

static void put_bool(struct jobj *j, const char *key, int b)
{
	put(j, key, json_object_new_boolean(!!b));
}

/* The object, or NULL (and nothing left allocated) if a member failed. */
static struct json_object *jobj_done(struct jobj *j)
{
	if (j->bad) {
		json_object_put(j->o);
		return NULL;
	}
	return j->o;
}

struct json_object *npuctl_cand_json(const struct npuflow_row *r, const char *ifname)
{
	const struct npuflow_key *k = &r->key;
	const struct npuflow_cand *v = &r->val;
	char s[INET6_ADDRSTRLEN + 8], d[INET6_ADDRSTRLEN + 8];
	struct jobj j = jobj_new();

	npuflow_fmt_addr(k->family, k->saddr, s, sizeof(s));
	npuflow_fmt_addr(k->family, k->daddr, d, sizeof(d));
	put_u64(&j, "ifindex", k->ifindex);
	put_str(&j, "ifname", ifname);
	put_u64(&j, "vlan_outer", k->vlan_outer & NPUFLOW_VLAN_VID);
	put_u64(&j, "vlan_inner", k->vlan_inner & NPUFLOW_VLAN_VID);
	if (k->vlan_outer & NPUFLOW_VLAN_AD)
		put_bool(&j, "vlan_outer_ad", 1);
	if (k->vlan_inner & NPUFLOW_VLAN_AD)
		put_bool(&j, "vlan_inner_ad", 1);
	if (k->pppoe_sid)
		put_u64(&j, "pppoe_sid", k->pppoe_sid);
	put_u64(&j, "family", k->family);
	put_u64(&j, "proto", k->proto);
	put_str(&j, "saddr", s);
	put_str(&j, "daddr", d);
	put_u64(&j, "sport", ntohs(k->sport));
	put_u64(&j, "dport", ntohs(k->dport));
	put_u64(&j, "frames", v->frames);
	put_u64(&j, "bytes", v->bytes);
	put_u64(&j, "first_ns", v->first_ns);
	put_u64(&j, "last_ns", v->last_ns);
	put_u64(&j, "tcp_flags", v->tcp_flags);
	put_str(&j, "reason", npuflow_reason_name(v->reason));
	put_i64(&j, "port", v->port == NPUFLOW_PORT_NONE ? -1 : (int)v->port + 1);
	put_i64(&j, "conn", v->conn == NPUFLOW_CONN_NONE ? -1LL : (long long)v->conn);
	put_u64(&j, "flags", v->flags);
	return jobj_done(&j);
}

/* {"<reason>": {"frames": N, "bytes": N}, ...} for every reason slot of @c. */
static struct json_object *reasons_json(const struct npuflow_counters *c)
{
	struct jobj j = jobj_new();
	unsigned int r;

	for (r = 0; r < NPUFLOW_R_SLOTS; r++) {
		struct jobj one = jobj_new();

		put_u64(&one, "frames", c->frames[r]);
		put_u64(&one, "bytes", c->bytes[r]);
		put(&j, npuflow_reason_name(r), jobj_done(&one));
	}
	return jobj_done(&j);
}

/* {"<counter>": N, ...} for every classifier counter of @c. */
static struct json_object *stats_json(const struct npuflow_counters *c)
{
	struct jobj j = jobj_new();
	unsigned int s;

	for (s = 0; s < NPUFLOW_S_MAX; s++)
		put_u64(&j, npuflow_stat_name(s), c->stat[s]);
	return jobj_done(&j);
}

struct json_object *npuctl_port_json(const struct npuctl_port *p)
{
	struct jobj j = jobj_new();

	put_u64(&j, "slot", p->slot);
	put_i64(&j, "port", npuctl_slot_port(p->slot));
	put_u64(&j, "ifindex", p->c.ifindex);
	put_str(&j, "ifname", p->ifname);
	put(&j, "reasons", reasons_json(&p->c));
	put(&j, "stats", stats_json(&p->c));
	return jobj_done(&j);
}

/* What @f's direction @dir arrives and leaves with beyond one 802.1Q tag:
 * the inner tags, 802.1ad outer tags, the PPPoE sessions; only where there are. */
static void dir_tags_json(struct jobj *j, const struct npuctl_flow *f, int dir)
{
	const struct npuflow_key *k = &f->c->key[dir];
	const struct npuflow_conn *c = f->c;

	if (k->vlan_outer & NPUFLOW_VLAN_AD)
		put_bool(j, "vlan_ad", 1);
	if (k->vlan_inner)
		put_u64(j, "vlan_inner", k->vlan_inner & NPUFLOW_VLAN_VID);
	if (k->vlan_inner & NPUFLOW_VLAN_AD)
		put_bool(j, "vlan_inner_ad", 1);
	if (k->pppoe_sid)
		put_u64(j, "pppoe_sid", k->pppoe_sid);
	if (c->out_vid[dir] & NPUFLOW_VLAN_AD)
		put_bool(j, "out_vlan_ad", 1);
	if (c->out_vid_inner[dir])
		put_u64(j, "out_vlan_inner", c->out_vid_inner[dir] & NPUFLOW_VLAN_VID);
	if (c->out_sid[dir])
		put_u64(j, "out_pppoe_sid", c->out_sid[dir]);
}

/* Direction @dir of connection @f. */
static struct json_object *dir_json(const struct npuctl_flow *f, int dir)
{
	const struct npuflow_key *k = &f->c->key[dir];
	int af = k->family == 10 ? AF_INET6 : AF_INET;
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	struct jobj j = jobj_new();

	inet_ntop(af, k->saddr, s, sizeof(s));
	inet_ntop(af, k->daddr, d, sizeof(d));
	put_str(&j, "in", f->in[dir]);
	put_str(&j, "out", f->out[dir]);
	put_u64(&j, "vlan", k->vlan_outer & NPUFLOW_VLAN_VID);
	put_u64(&j, "out_vlan", f->c->out_vid[dir] & NPUFLOW_VLAN_VID);
	dir_tags_json(&j, f, dir);
	put_str(&j, "src", s);
	put_u64(&j, "sport", ntohs(k->sport));
	put_str(&j, "dst", d);
	put_u64(&j, "dport", ntohs(k->dport));
	put_u64(&j, "handle", f->c->hw_handle[dir]);
	put_bool(&j, "in_hw", f->c->flags & (dir ? NPUFLOW_CONN_F_HW1 : NPUFLOW_CONN_F_HW0));
	put_u64(&j, "packets", f->c->packets[dir]);
	put_u64(&j, "bytes", f->c->bytes[dir]);
	return jobj_done(&j);
}

/* [direction 0, direction 1] of @f. */
static struct json_object *dirs_json(const struct npuctl_flow *f)
{
	struct json_object *a = json_object_new_array_ext(2);
	int dir;

	for (dir = 0; a && dir < 2; dir++) {
		struct json_object *d = dir_json(f, dir);

		if (!d || json_object_array_add(a, d)) {
			json_object_put(d);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

struct json_object *npuctl_flow_json(const struct npuctl_flow *f)
{
	const struct npuflow_conn *c = f->c;
	struct jobj j = jobj_new();

	put_u64(&j, "id", f->id);
	put_str(&j, "state", fm_state_name(c->state));
	put_str(&j, "reason", fm_reason_name(c->reason));
	put_u64(&j, "proto", c->key[0].proto);
	put_u64(&j, "family", c->key[0].family == 10 ? 6 : 4);
	put_u64(&j, "ct_id", c->ct_id);
	put_u64(&j, "zone", c->zone);
	put_bool(&j, "nat", c->flags & NPUFLOW_CONN_F_NAT);
	put_bool(&j, "routed", c->flags & NPUFLOW_CONN_F_ROUTED);
	put_u64(&j, "age_ns", f->age_ns);
	put_u64(&j, "idle_ns", f->idle_ns);
	put_u64(&j, "givebacks", c->givebacks);
	put_u64(&j, "remakes", c->remakes);
	put_u64(&j, "revives", c->revives);
	put_u64(&j, "holds", c->holds);
	put_u64(&j, "wait_ns", c->wait_ns);
	put_u64(&j, "made_ns", c->made_ns);
	put_u64(&j, "first_ns", c->first_ns);
	put_u64(&j, "cross_ns", c->cross_ns);
	put_u64(&j, "hw_ns", c->hw_ns);
	put_u64(&j, "punted", c->punted);
	put(&j, "dirs", dirs_json(f));
	return jobj_done(&j);
}

/* {"<name(i)>": v[i], ...} for i in [@from, @to). */
static struct json_object *named_json(const __u64 *v, unsigned int from, unsigned int to,
				      const char *(*name)(unsigned int))
{
	struct jobj j = jobj_new();
	unsigned int i;

	for (i = from; i < to; i++)
		put_u64(&j, name(i), v[i]);
	return jobj_done(&j);
}

/* npuflowd's loop: its passes, what woke them, where its time went. */
static struct json_object *loop_json(const struct npuctl_status *s)
{
	const struct npuflow_loopstats *l = &s->loop;
	struct jobj j = jobj_new();

	put_u64(&j, "updated_ns_ago", s->loop_updated_ns_ago);
	put_u64(&j, "passes", l->passes);
	put(&j, "wakeups", named_json(l->wakes, 0, NPUFLOW_LW_MAX, loop_wake_name));
	put(&j, "busy_us", named_json(l->busy_us, 0, NPUFLOW_LP_MAX, loop_part_name));
	put_u64(&j, "wait_us", l->wait_us);
	put_u64(&j, "cpu_user_us", l->cpu_user_us);
	put_u64(&j, "cpu_sys_us", l->cpu_sys_us);
	return jobj_done(&j);
}

struct json_object *npuctl_status_json(const struct npuctl_status *s)
{
	const struct npuflow_fmstats *st = &s->st;
	struct jobj j = jobj_new();

	put_bool(&j, "running", s->pid);
	put_i64(&j, "pid", s->pid);
	if (!s->pinned) {
		put_bool(&j, "pinned", 0);
		return jobj_done(&j);
	}
	put_u64(&j, "uptime_ns", s->uptime_ns);
	put_u64(&j, "updated_ns_ago", s->updated_ns_ago);
	put(&j, "states", named_json(st->state, 1, NPUFLOW_CS_MAX, fm_state_name));
	put_bool(&j, "table_full", st->stat[NPUFLOW_FM_TABLE_FULL]);
	put_u64(&j, "full_waiting", st->stat[NPUFLOW_FM_FULL_WAITING]);
	put(&j, "counters", named_json(st->stat, 0, NPUFLOW_FM_MAX, fm_stat_name));
	put(&j, "refused", named_json(st->refused, 1, NPUFLOW_FR_SLOTS, fm_reason_name));
	if (s->have_loop)
		put(&j, "loop", loop_json(s));
	return jobj_done(&j);
}

/* @o's text on @f (no newline): 0, -ENOMEM or -EIO.  Does not put @o. */
static int put_text(FILE *f, struct json_object *o)
{
	const char *s = o ? json_object_to_json_string_ext(o, NPUCTL_JSON_FLAGS) : NULL;

	if (!s)
		return -ENOMEM;
	return fputs(s, f) < 0 ? -EIO : 0;
}

int npuctl_json_print(FILE *f, struct json_object *o)
{
	int rc = put_text(f, o);

	json_object_put(o);
	if (!rc && putc('\n', f) == EOF)
		rc = -EIO;
	return rc;
}

void npuctl_jlist_begin(struct npuctl_jlist *l, FILE *f)
{
	l->f = f;
	l->n = 0;
	l->err = fputc('[', f) == EOF ? -EIO : 0;
}

void npuctl_jlist_add(struct npuctl_jlist *l, struct json_object *o)
{
	int rc;

	if (!l->err && o && fputs(l->n ? ",\n  " : "\n  ", l->f) < 0)
		l->err = -EIO;
	rc = l->err ? 0 : put_text(l->f, o);
	json_object_put(o);
	if (rc)
		l->err = rc;
	else if (!l->err)
		l->n++;
}

int npuctl_jlist_end(struct npuctl_jlist *l)
{
	if (fputs(l->n ? "\n]\n" : "]\n", l->f) < 0 && !l->err)
		l->err = -EIO;
	return l->err;
}
