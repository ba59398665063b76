// SPDX-License-Identifier: GPL-2.0
/*
 * npuep devlink: instance, info, parameters, resources and the health
 * reporters' registration; a reload takes the device's state down and up
 * (dev.c).  The devlink ports are port.c's, the traps trap.c's.
 */
#include "npuep.h"

#define NPUEP_POLL_INTERVAL_MAX	1000000	/* 1 s */

static int npuep_dl_info_get(struct devlink *devlink,
			     struct devlink_info_req *req,
			     struct netlink_ext_ack *extack)
{
	struct npuep_dev *ndev = devlink_priv(devlink);
	char serial[20];
	int err;

	snprintf(serial, sizeof(serial), "%016llx", ndev->serial);
	err = devlink_info_serial_number_put(req, serial);
	if (err)
		return err;
	return devlink_info_version_running_put(req, "fw", ndev->fw_ver);
}

static int npuep_dl_reload_down(struct devlink *devlink, bool netns_change,
				enum devlink_reload_action action,
				enum devlink_reload_limit limit,
				struct netlink_ext_ack *extack)
{
	if (netns_change) {
		NL_SET_ERR_MSG_MOD(extack,
				   "npuep cannot move its netdevs by reload");
		return -EOPNOTSUPP;
	}
	return npuep_dev_down(devlink_priv(devlink), NPUEP_DEV_RELOAD, extack);
}

static int npuep_dl_reload_up(struct devlink *devlink,
			      enum devlink_reload_action action,
			      enum devlink_reload_limit limit,
			      u32 *actions_performed,
			      struct netlink_ext_ack *extack)
{
	*actions_performed = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT);
	return npuep_dev_up(devlink_priv(devlink), NPUEP_DEV_RELOAD, extack);
}

static const struct devlink_ops npuep_devlink_ops = {
	.reload_actions = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT),
	.reload_down = npuep_dl_reload_down,
	.reload_up = npuep_dl_reload_up,
	.info_get = npuep_dl_info_get,
	.trap_init = npuep_trap_init,
	.trap_fini = npuep_trap_fini,
	.trap_action_set = npuep_trap_action_set,
	.trap_group_init = npuep_trap_group_init,
	.trap_group_set = npuep_trap_group_set,
	.trap_policer_init = npuep_trap_policer_init,
	.trap_policer_set = npuep_trap_policer_set,
	.trap_policer_counter_get = npuep_trap_policer_counter_get,
};

static int npuep_dl_poll_interval_get(struct devlink *devlink, u32 id,
				      struct devlink_param_gset_ctx *ctx)
{
	struct npuep_dev *ndev = devlink_priv(devlink);

	ctx->val.vu32 = READ_ONCE(ndev->poll_interval_us);
	return 0;
}

static int npuep_dl_poll_interval_set(struct devlink *devlink, u32 id,
				      struct devlink_param_gset_ctx *ctx,
				      struct netlink_ext_ack *extack)
{
	struct npuep_dev *ndev = devlink_priv(devlink);

	WRITE_ONCE(ndev->poll_interval_us, ctx->val.vu32);
	npuep_poll_rearm(ndev);
	return 0;
}

static int npuep_dl_poll_interval_validate(struct devlink *devlink, u32 id,
					   union devlink_param_value val,
					   struct netlink_ext_ack *extack)
{
	if (val.vu32 > NPUEP_POLL_INTERVAL_MAX) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "poll_interval_us is 0 (off) or at most %u",
				       NPUEP_POLL_INTERVAL_MAX);
		return -ERANGE;
	}
	return 0;
}

static int npuep_dl_bool_get(struct devlink *devlink, u32 id,
			     struct devlink_param_gset_ctx *ctx)
{
	struct npuep_dev *ndev = devlink_priv(devlink);

	switch (id) {
	case NPUEP_DL_PARAM_ID_FASTPATH:
		ctx->val.vbool = !!npuep_rd32(ndev, NPU_REG_FASTPATH);
		break;
	case NPUEP_DL_PARAM_ID_REVIVE:
		ctx->val.vbool = ndev->ft ? READ_ONCE(ndev->ft->revive) :
					    READ_ONCE(ndev->dlx.revive);
		break;
	case NPUEP_DL_PARAM_ID_FLOW_CMD_POSTED:
		ctx->val.vbool = READ_ONCE(ndev->dlx.flow_cmd_posted);
		break;
	default:
		return -EOPNOTSUPP;
	}
	return 0;
}

static int npuep_dl_bool_set(struct devlink *devlink, u32 id,
			     struct devlink_param_gset_ctx *ctx,
			     struct netlink_ext_ack *extack)
{
	struct npuep_dev *ndev = devlink_priv(devlink);

	switch (id) {
	case NPUEP_DL_PARAM_ID_FASTPATH:
		WRITE_ONCE(ndev->dlx.fastpath, ctx->val.vbool);
		npuep_dev_fastpath_apply(ndev);
		break;
	case NPUEP_DL_PARAM_ID_REVIVE:
		WRITE_ONCE(ndev->dlx.revive, ctx->val.vbool);
		npuep_dev_fastpath_apply(ndev);
		break;
	case NPUEP_DL_PARAM_ID_FLOW_CMD_POSTED:
		WRITE_ONCE(ndev->dlx.flow_cmd_posted, ctx->val.vbool);
		break;
	default:
		return -EOPNOTSUPP;
	}
	return 0;
}

static const char * const npuep_cmd_ring_names[NPU_CMD_RINGS] = {
	[NPUEP_CMD_RING_NORMAL] = "normal",
	[NPUEP_CMD_RING_HIGH] = "high",
};

static int npuep_dl_cmd_ring_get(struct devlink *devlink, u32 id,
				 struct devlink_param_gset_ctx *ctx)
{
	struct npuep_dev *ndev = devlink_priv(devlink);

	strscpy(ctx->val.vstr,
		npuep_cmd_ring_names[READ_ONCE(ndev->dlx.flow_cmd_ring)],
		sizeof(ctx->val.vstr));
	return 0;
}

static int npuep_dl_cmd_ring_parse(const char *s)
{
	int r;

	for (r = 0; r < NPU_CMD_RINGS; r++)
		if (!strcmp(s, npuep_cmd_ring_names[r]))
			return r;
	return -EINVAL;
}

static int npuep_dl_cmd_ring_set(struct devlink *devlink, u32 id,
				 struct devlink_param_gset_ctx *ctx,
				 struct netlink_ext_ack *extack)
{
	struct npuep_dev *ndev = devlink_priv(devlink);
	int r = npuep_dl_cmd_ring_parse(ctx->val.vstr);

	if (r < 0)
		return r;
	WRITE_ONCE(ndev->dlx.flow_cmd_ring, r);
	return 0;
}

static int npuep_dl_cmd_ring_validate(struct devlink *devlink, u32 id,
				      union devlink_param_value val,
				      struct netlink_ext_ack *extack)
{
	if (npuep_dl_cmd_ring_parse(val.vstr) < 0) {
		NL_SET_ERR_MSG_MOD(extack,
				   "flow_cmd_ring is \"normal\" or \"high\"");
		return -EINVAL;
	}
	return 0;
}

static const struct devlink_param npuep_devlink_params[] = {
	DEVLINK_PARAM_DRIVER(NPUEP_DL_PARAM_ID_FASTPATH,
			     "fastpath", DEVLINK_PARAM_TYPE_BOOL,
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			     npuep_dl_bool_get, npuep_dl_bool_set, NULL),
	DEVLINK_PARAM_DRIVER(NPUEP_DL_PARAM_ID_REVIVE,
			     "revive", DEVLINK_PARAM_TYPE_BOOL,
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			     npuep_dl_bool_get, npuep_dl_bool_set, NULL),
	DEVLINK_PARAM_DRIVER(NPUEP_DL_PARAM_ID_FLOW_CMD_RING,
			     "flow_cmd_ring", DEVLINK_PARAM_TYPE_STRING,
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			     npuep_dl_cmd_ring_get, npuep_dl_cmd_ring_set,
			     npuep_dl_cmd_ring_validate),
	DEVLINK_PARAM_DRIVER(NPUEP_DL_PARAM_ID_FLOW_CMD_POSTED,
			     "flow_cmd_posted", DEVLINK_PARAM_TYPE_BOOL,
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			     npuep_dl_bool_get, npuep_dl_bool_set, NULL),
	DEVLINK_PARAM_DRIVER(NPUEP_DL_PARAM_ID_POLL_INTERVAL,
			     "poll_interval_us", DEVLINK_PARAM_TYPE_U32,
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			     npuep_dl_poll_interval_get,
			     npuep_dl_poll_interval_set,
			     npuep_dl_poll_interval_validate),
	DEVLINK_PARAM_DRIVER(NPUEP_DL_PARAM_ID_RX_DOORBELLS,
			     "rx_doorbells", DEVLINK_PARAM_TYPE_BOOL,
			     BIT(DEVLINK_PARAM_CMODE_DRIVERINIT),
			     NULL, NULL, NULL),
};

/**
 * npuep_devlink_alloc() - allocate the devlink instance of a coprocessor
 * @dev: the auxiliary device's struct device
 *
 * Return: the instance (private data: struct npuep_dev) or NULL.
 */
struct devlink *npuep_devlink_alloc(struct device *dev)
{
	return devlink_alloc(&npuep_devlink_ops, sizeof(struct npuep_dev), dev);
}

/**
 * npuep_devlink_params_register() - register parameters, load init values
 * @ndev: the coprocessor; called with the instance lock held
 *
 * Return: 0 or a negative errno.
 */
int npuep_devlink_params_register(struct npuep_dev *ndev)
{
	union devlink_param_value val;
	int err;

	err = devl_params_register(ndev->devlink, npuep_devlink_params,
				   ARRAY_SIZE(npuep_devlink_params));
	if (err)
		return err;
	val.vbool = true;
	devl_param_driverinit_value_set(ndev->devlink,
					NPUEP_DL_PARAM_ID_RX_DOORBELLS, val);
	ndev->rx_doorbells = true;
	ndev->dlx.fastpath = true;
	ndev->dlx.revive = true;
	/*
	 * Flow writes are posted by default (seed 004: 8 us posted vs 27 us
	 * waited per connection on hardware; make bench measures the
	 * model's ratio): the flow-table lock is then never held across a
	 * device round trip.  Capacity is checked in the shadow table first,
	 * so a full table is still refused at once.
	 */
	ndev->dlx.flow_cmd_posted = true;
	return 0;
}

static u64 npuep_dl_conns_occ(void *priv)
{
	struct npuep_dev *ndev = priv;

	return ndev->ft ? READ_ONCE(ndev->ft->nconns) : 0;
}

static u64 npuep_dl_mflows_occ(void *priv)
{
	struct npuep_dev *ndev = priv;

	return ndev->ft ? READ_ONCE(ndev->ft->nflows) : 0;
}

/*
 * The flow-table size resources, instance lock held:
 * /fastpath/connections and /fastpath/microflows, at the default sizes the
 * probe's table has (npuep_dev_up()), sizes applied by "devlink dev
 * reload", occupancy from the shadow table.  Return: 0 or a negative errno.
 */
static int npuep_devlink_resources_register(struct npuep_dev *ndev)
{
	struct devlink *devlink = ndev->devlink;
	struct devlink_resource_size_params p;
	int err;

	devlink_resource_size_params_init(&p, 0, U64_MAX, 1,
					  DEVLINK_RESOURCE_UNIT_ENTRY);
	err = devl_resource_register(devlink, "fastpath", U64_MAX,
				     NPUEP_RES_FASTPATH,
				     DEVLINK_RESOURCE_ID_PARENT_TOP, &p);
	if (err)
		return err;
	devlink_resource_size_params_init(&p, 1, NPU_FT_CONNS_MAX, 1,
					  DEVLINK_RESOURCE_UNIT_ENTRY);
	err = devl_resource_register(devlink, "connections",
				     NPUEP_FT_CONNS_DEFAULT, NPUEP_RES_CONNS,
				     NPUEP_RES_FASTPATH, &p);
	if (err)
		goto err;
	devlink_resource_size_params_init(&p, 1, NPU_FT_MFLOWS_MAX, 1,
					  DEVLINK_RESOURCE_UNIT_ENTRY);
	err = devl_resource_register(devlink, "microflows",
				     NPUEP_FT_MFLOWS_DEFAULT, NPUEP_RES_MFLOWS,
				     NPUEP_RES_FASTPATH, &p);
	if (err)
		goto err;
	devl_resource_occ_get_register(devlink, NPUEP_RES_CONNS,
				       npuep_dl_conns_occ, ndev);
	devl_resource_occ_get_register(devlink, NPUEP_RES_MFLOWS,
				       npuep_dl_mflows_occ, ndev);
	return 0;
err:
	devl_resources_unregister(devlink);
	return err;
}

/**
 * npuep_dlx_register() - the resources and the health reporters
 * @ndev: the coprocessor; instance lock held, params registered
 *
 * What lives as long as the binding; the traps and the region come and go
 * with the device's state (npuep_dev_up(), npuep_dev_down()).
 *
 * Return: 0 or a negative errno.
 */
int npuep_dlx_register(struct npuep_dev *ndev)
{
	int err;

	err = npuep_devlink_resources_register(ndev);
	if (err)
		return err;
	err = npuep_health_create(ndev);
	if (err)
		devl_resources_unregister(ndev->devlink);
	return err;
}

/**
 * npuep_dlx_unregister() - the reverse of npuep_dlx_register()
 * @ndev: the coprocessor; instance lock held, npuep_health_stop() done
 */
void npuep_dlx_unregister(struct npuep_dev *ndev)
{
	npuep_health_destroy(ndev);
	devl_resources_unregister(ndev->devlink);
}

/**
 * npuep_devlink_params_unregister() - unregister the parameters
 * @ndev: the coprocessor; called with the instance lock held
 */
void npuep_devlink_params_unregister(struct npuep_dev *ndev)
{
	devl_params_unregister(ndev->devlink, npuep_devlink_params,
			       ARRAY_SIZE(npuep_devlink_params));
}
