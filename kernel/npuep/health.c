// SPDX-License-Identifier: GPL-2.0
/*
 * npuep devlink health reporters.
 *
 * "cmd": the command channel, observed through npuep_cmd_observe().  A
 * fault the channel tells of (a command that changes the device timed out,
 * the device wrote what the rings cannot be trusted after; a read that
 * times out is only counted there) is reported from health_work: the
 * command's caller may hold the devlink instance lock, which
 * devlink_health_report() takes to recover.  Recovery resets both command
 * rings (npuep_cmd_reset()) and, when a command that changes the tables
 * was lost, brings the device's state up as the "fw" recovery does.
 *
 * "fw": the coprocessor's fast-path firmware.  health_work reads
 * NPU_REG_FW_STATUS; a fault is reported once.  Recovery brings the
 * device's state up again (npuep_dev_up(), NPUEP_DEV_RECOVER): the fast
 * path reset (NPU_CMD_FT_CONFIG), every connection of the driver's shadow
 * table re-programmed, the fast-path params, the trap policers and the
 * ntuple rules written again.
 *
 * An automatic recovery (one health_work's report started) that fails is
 * tried again by health_work, after 1 s and then twice as long each time it
 * fails, up to 32 s: devlink does not recover a reporter that is already in
 * error (devlink_health_report() aborts), so without it a device that
 * stalled through one recovery would keep a table the driver no longer
 * has.  A try that succeeds sets the reporter healthy
 * (devlink_health_reporter_state_update()).  A recovery asked for by hand
 * is the operator's and is not tried again.
 */
#include "npuep.h"

#define NPUEP_HEALTH_POLL_MS	200
#define NPUEP_HEALTH_RETRY_MS_MIN	1000
#define NPUEP_HEALTH_RETRY_MS_MAX	32000

/* The priv_ctx of health_work's reports: their recovery is automatic. */
static const char npuep_health_auto[] = "auto";

static void npuep_health_cmd_fmsg(struct npuep_dev *ndev,
				  struct devlink_fmsg *fmsg)
{
	struct npuep_cmd_ring_state st;
	u32 r;

	devlink_fmsg_arr_pair_nest_start(fmsg, "rings");
	for (r = 0; r < NPU_CMD_RINGS; r++) {
		npuep_cmd_state(ndev, r, &st);
		devlink_fmsg_obj_nest_start(fmsg);
		devlink_fmsg_string_pair_put(fmsg, "ring",
					     r == NPUEP_CMD_RING_HIGH ?
					     "high" : "normal");
		devlink_fmsg_u32_pair_put(fmsg, "head", st.head);
		devlink_fmsg_u32_pair_put(fmsg, "tail", st.tail);
		devlink_fmsg_u32_pair_put(fmsg, "seq", st.seq);
		devlink_fmsg_u64_pair_put(fmsg, "posted", st.posted);
		devlink_fmsg_u64_pair_put(fmsg, "posted_failed",
					  st.posted_failed);
		devlink_fmsg_u64_pair_put(fmsg, "timeouts", st.timeouts);
		/* of those, reads: counted, not reported, asked again */
		devlink_fmsg_u64_pair_put(fmsg, "read_timeouts",
					  st.read_timeouts);
		/* posted commands queued in the driver behind a full ring */
		devlink_fmsg_u32_pair_put(fmsg, "backlog", st.backlog);
		devlink_fmsg_u64_pair_put(fmsg, "backlogged", st.backlogged);
		devlink_fmsg_u64_pair_put(fmsg, "backlog_waits", st.backlog_waits);
		devlink_fmsg_obj_nest_end(fmsg);
	}
	devlink_fmsg_arr_pair_nest_end(fmsg);
	devlink_fmsg_u64_pair_put(fmsg, "resyncs", READ_ONCE(ndev->dlx.cmd_resyncs));
	devlink_fmsg_u64_pair_put(fmsg, "retried", READ_ONCE(ndev->dlx.retried));
	devlink_fmsg_u32_pair_put(fmsg, "replayed", READ_ONCE(ndev->dlx.cmd_replayed));
}

static int npuep_health_cmd_diagnose(struct devlink_health_reporter *reporter,
				     struct devlink_fmsg *fmsg,
				     struct netlink_ext_ack *extack)
{
	npuep_health_cmd_fmsg(devlink_health_reporter_priv(reporter), fmsg);
	return 0;
}

static int npuep_health_cmd_dump(struct devlink_health_reporter *reporter,
				 struct devlink_fmsg *fmsg, void *priv_ctx,
				 struct netlink_ext_ack *extack)
{
	struct npuep_dev *ndev = devlink_health_reporter_priv(reporter);
	u32 last = READ_ONCE(ndev->dlx.last_timeout);
	struct npuep_cmd_slot_state st;
	u32 r, i;

	npuep_health_cmd_fmsg(ndev, fmsg);
	devlink_fmsg_u32_pair_put(fmsg, "last_timeout_ring", last >> 16);
	devlink_fmsg_u32_pair_put(fmsg, "last_timeout_opcode", last & 0xffff);
	devlink_fmsg_arr_pair_nest_start(fmsg, "slots");
	for (r = 0; r < NPU_CMD_RINGS; r++) {
		for (i = 0; i < NPU_CMD_RING_SIZE; i++) {
			if (!npuep_cmd_slot_state(ndev, r, i, &st))
				continue;
			devlink_fmsg_obj_nest_start(fmsg);
			devlink_fmsg_u32_pair_put(fmsg, "ring", r);
			devlink_fmsg_u32_pair_put(fmsg, "slot", i);
			devlink_fmsg_u32_pair_put(fmsg, "opcode", st.opcode);
			devlink_fmsg_u32_pair_put(fmsg, "seq", st.seq);
			devlink_fmsg_u32_pair_put(fmsg, "flags", st.flags);
			devlink_fmsg_u32_pair_put(fmsg, "status", st.status);
			devlink_fmsg_obj_nest_end(fmsg);
		}
	}
	devlink_fmsg_arr_pair_nest_end(fmsg);
	return 0;
}

/*
 * Note how a recovery of @r ended: a failed automatic one (@priv_ctx is
 * health_work's), or any that fails while a try is armed, arms the next try
 * with a doubled wait; success disarms.
 */
static void npuep_health_retry_note(struct npuep_health_retry *r,
				    void *priv_ctx, int err)
{
	if (!err) {
		r->ms = 0;
		return;
	}
	if (priv_ctx != npuep_health_auto && !r->ms)
		return;
	r->ms = r->ms ? min(2 * r->ms, NPUEP_HEALTH_RETRY_MS_MAX) :
		NPUEP_HEALTH_RETRY_MS_MIN;
	r->due = jiffies + msecs_to_jiffies(r->ms);
}

static int npuep_health_cmd_reset(struct npuep_dev *ndev,
				  struct netlink_ext_ack *extack)
{
	bool lost;
	int n, err;

	err = npuep_cmd_reset(ndev, &lost);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "command ring reset failed");
		return err;
	}
	if (!lost)
		return 0;
	/*
	 * A create, reclaim or ntuple command the device never executed (or
	 * will execute after the reset: a slow device, not a dead one) would
	 * leave a connection only one side knows of.  A resync that fails
	 * leaves the tables marked, so that the next reset resyncs them.
	 */
	n = npuep_dev_up(ndev, NPUEP_DEV_RECOVER, extack);
	if (n < 0) {
		WRITE_ONCE(ndev->cmd_chk.resync, true);
		return n;
	}
	WRITE_ONCE(ndev->dlx.cmd_replayed, n);
	WRITE_ONCE(ndev->dlx.cmd_resyncs, ndev->dlx.cmd_resyncs + 1);
	dev_info(ndev->dev,
		 "command rings reset with table commands unexecuted: %d connections re-programmed\n",
		 n);
	return 0;
}

static int npuep_health_cmd_recover(struct devlink_health_reporter *reporter,
				    void *priv_ctx,
				    struct netlink_ext_ack *extack)
{
	struct npuep_dev *ndev = devlink_health_reporter_priv(reporter);
	int err = npuep_health_cmd_reset(ndev, extack);

	npuep_health_retry_note(&ndev->dlx.cmd_retry, priv_ctx, err);
	return err;
}

static const struct devlink_health_reporter_ops npuep_health_cmd_ops = {
	.name = "cmd",
	.recover = npuep_health_cmd_recover,
	.dump = npuep_health_cmd_dump,
	.diagnose = npuep_health_cmd_diagnose,
};

/*
 * Also the auto-dump's, from health_work: ft_sem keeps a reload's resize
 * from freeing the shadow table under the read.
 */
static void npuep_health_fw_fmsg(struct npuep_dev *ndev,
				 struct devlink_fmsg *fmsg)
{
	u32 st = npuep_rd32(ndev, NPU_REG_FW_STATUS);
	u32 conns = 0, flows = 0;

	down_read(&ndev->ft_sem);
	if (ndev->ft) {
		conns = READ_ONCE(ndev->ft->nconns);
		flows = READ_ONCE(ndev->ft->nflows);
	}
	up_read(&ndev->ft_sem);

	devlink_fmsg_string_pair_put(fmsg, "fw_status",
				     st & NPU_FW_STATUS_FAULT ? "fault" : "ok");
	devlink_fmsg_u32_pair_put(fmsg, "hw_conns",
				  npuep_rd32(ndev, NPU_REG_FT_CONNS));
	devlink_fmsg_u32_pair_put(fmsg, "hw_mflows",
				  npuep_rd32(ndev, NPU_REG_FT_MFLOWS));
	devlink_fmsg_u32_pair_put(fmsg, "shadow_conns", conns);
	devlink_fmsg_u32_pair_put(fmsg, "shadow_flows", flows);
	devlink_fmsg_u64_pair_put(fmsg, "recoveries",
				  READ_ONCE(ndev->dlx.fw_recoveries));
	devlink_fmsg_u32_pair_put(fmsg, "replayed",
				  READ_ONCE(ndev->dlx.fw_replayed));
}

static int npuep_health_fw_diagnose(struct devlink_health_reporter *reporter,
				    struct devlink_fmsg *fmsg,
				    struct netlink_ext_ack *extack)
{
	npuep_health_fw_fmsg(devlink_health_reporter_priv(reporter), fmsg);
	return 0;
}

static int npuep_health_fw_dump(struct devlink_health_reporter *reporter,
				struct devlink_fmsg *fmsg, void *priv_ctx,
				struct netlink_ext_ack *extack)
{
	npuep_health_fw_fmsg(devlink_health_reporter_priv(reporter), fmsg);
	return 0;
}

static int npuep_health_fw_reset(struct npuep_dev *ndev,
				 struct netlink_ext_ack *extack)
{
	int n;

	/* The fault emptied the fast path and the ntuple tables (npu_hw.h). */
	n = npuep_dev_up(ndev, NPUEP_DEV_RECOVER, extack);
	if (n < 0)
		return n;
	ndev->dlx.fw_faulted = false;
	WRITE_ONCE(ndev->dlx.fw_replayed, n);
	WRITE_ONCE(ndev->dlx.fw_recoveries, ndev->dlx.fw_recoveries + 1);
	dev_info(ndev->dev, "fast path reset, %d connections re-programmed\n",
		 n);
	return 0;
}

static int npuep_health_fw_recover(struct devlink_health_reporter *reporter,
				   void *priv_ctx,
				   struct netlink_ext_ack *extack)
{
	struct npuep_dev *ndev = devlink_health_reporter_priv(reporter);
	int err = npuep_health_fw_reset(ndev, extack);

	npuep_health_retry_note(&ndev->dlx.fw_retry, priv_ctx, err);
	return err;
}

static const struct devlink_health_reporter_ops npuep_health_fw_ops = {
	.name = "fw",
	.recover = npuep_health_fw_recover,
	.dump = npuep_health_fw_dump,
	.diagnose = npuep_health_fw_diagnose,
};

/*
 * Try a failed automatic recovery of @rep again once its wait is over,
 * under the instance lock as devlink's own recoveries run; one that works
 * sets the reporter healthy.
 */
static void npuep_health_retry_run(struct npuep_dev *ndev,
				   struct npuep_health_retry *r,
				   struct devlink_health_reporter *rep,
				   int (*reset)(struct npuep_dev *ndev,
						struct netlink_ext_ack *extack))
{
	int err;

	if (!READ_ONCE(r->ms))
		return;
	devl_lock(ndev->devlink);
	if (!r->ms || time_before(jiffies, r->due)) {
		devl_unlock(ndev->devlink);
		return;
	}
	ndev->dlx.retried++;
	err = reset(ndev, NULL);
	npuep_health_retry_note(r, (void *)npuep_health_auto, err);
	if (!err)
		devlink_health_reporter_state_update(rep,
						     DEVLINK_HEALTH_REPORTER_STATE_HEALTHY);
	devl_unlock(ndev->devlink);
	if (err)
		dev_warn(ndev->dev, "%s recovery failed again (%d): next try in %u ms\n",
			 rep == ndev->dlx.cmd_reporter ? "cmd" : "fw", err, r->ms);
}

static void npuep_health_work(struct work_struct *work)
{
	struct npuep_dev *ndev = container_of(to_delayed_work(work),
					      struct npuep_dev,
					      dlx.health_work);
	struct npuep_dlx *dlx = &ndev->dlx;
	u32 st;

	if (READ_ONCE(dlx->stopping))
		return;
	if (xchg(&dlx->cmd_timeout_pending, false))
		devlink_health_report(dlx->cmd_reporter,
				      "command timed out or never reached the device",
				      (void *)npuep_health_auto);
	st = npuep_rd32(ndev, NPU_REG_FW_STATUS);
	if (st & NPU_FW_STATUS_FAULT) {
		if (!dlx->fw_faulted) {
			dlx->fw_faulted = true;
			dev_err(ndev->dev, "fast-path firmware fault\n");
			devlink_health_report(dlx->fw_reporter,
					      "fast-path firmware fault",
					      (void *)npuep_health_auto);
		}
	} else {
		dlx->fw_faulted = false;
	}
	npuep_health_retry_run(ndev, &dlx->cmd_retry, dlx->cmd_reporter,
			       npuep_health_cmd_reset);
	npuep_health_retry_run(ndev, &dlx->fw_retry, dlx->fw_reporter,
			       npuep_health_fw_reset);
	if (!READ_ONCE(dlx->stopping))
		queue_delayed_work(system_wq, &dlx->health_work,
				   msecs_to_jiffies(NPUEP_HEALTH_POLL_MS));
}

/*
 * The command channel's fault (struct npuep_cmd_observer): reported from
 * health_work.  Any context, possibly under the devlink instance lock or a
 * ring's slot_lock.
 */
static void npuep_health_cmd_fault(struct npuep_dev *ndev, u32 ring,
				   u16 opcode)
{
	struct npuep_dlx *dlx = &ndev->dlx;

	WRITE_ONCE(dlx->last_timeout, ring << 16 | opcode);
	WRITE_ONCE(dlx->cmd_timeout_pending, true);
	if (dlx->cmd_reporter && !READ_ONCE(dlx->stopping))
		mod_delayed_work(system_wq, &dlx->health_work, 0);
}

static const struct npuep_cmd_observer npuep_health_cmd_observer = {
	.fault = npuep_health_cmd_fault,
};

/**
 * npuep_health_create() - create the reporters and start the status poll
 * @ndev: the coprocessor; instance lock held
 *
 * The "cmd" reporter observes the command channel from here on
 * (npuep_cmd_observe()).
 *
 * Return: 0 or a negative errno.
 */
int npuep_health_create(struct npuep_dev *ndev)
{
	struct npuep_dlx *dlx = &ndev->dlx;
	struct devlink_health_reporter *rep;

	INIT_DELAYED_WORK(&dlx->health_work, npuep_health_work);
	rep = devl_health_reporter_create(ndev->devlink, &npuep_health_cmd_ops,
					  0, ndev);
	if (IS_ERR(rep))
		return PTR_ERR(rep);
	dlx->cmd_reporter = rep;
	rep = devl_health_reporter_create(ndev->devlink, &npuep_health_fw_ops,
					  0, ndev);
	if (IS_ERR(rep)) {
		devl_health_reporter_destroy(dlx->cmd_reporter);
		dlx->cmd_reporter = NULL;
		return PTR_ERR(rep);
	}
	dlx->fw_reporter = rep;
	npuep_cmd_observe(ndev, &npuep_health_cmd_observer);
	queue_delayed_work(system_wq, &dlx->health_work,
			   msecs_to_jiffies(NPUEP_HEALTH_POLL_MS));
	return 0;
}

/**
 * npuep_health_stop() - stop the status poll and pending reports
 * @ndev: the coprocessor; NOT under the instance lock (the work takes it)
 */
void npuep_health_stop(struct npuep_dev *ndev)
{
	WRITE_ONCE(ndev->dlx.stopping, true);
	if (ndev->dlx.cmd_reporter)
		cancel_delayed_work_sync(&ndev->dlx.health_work);
}

/**
 * npuep_health_destroy() - destroy the reporters
 * @ndev: the coprocessor; instance lock held, npuep_health_stop() done
 */
void npuep_health_destroy(struct npuep_dev *ndev)
{
	struct npuep_dlx *dlx = &ndev->dlx;

	npuep_cmd_observe(ndev, NULL);
	if (dlx->fw_reporter)
		devl_health_reporter_destroy(dlx->fw_reporter);
	if (dlx->cmd_reporter)
		devl_health_reporter_destroy(dlx->cmd_reporter);
	dlx->fw_reporter = NULL;
	dlx->cmd_reporter = NULL;
}
