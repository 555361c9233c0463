/** A charge of a branch's catalogue, and how it is published (the API, its events and its history show the same). */
import type { Caller } from '@clinic/contracts';
import type { ClinicClock } from '@clinic/service-kit';
import type { ChargeFields } from './rules';

export interface ChargeDoc extends ChargeFields {
  _id: string;
  id: number;
  store_id: number;
  name_key: string;
  /**
   * 0 while the charge is live, its id once deleted. The unique index on
   * (store_id, name_key, live_key) therefore holds among live charges only,
   * without a partial index (FerretDB v1 has none).
   */
  live_key: number;
  is_deleted: boolean;
  created_by: Caller['sub'];
  updated_by: Caller['sub'] | null;
  created_at: Date;
  updated_at: Date | null;
  _event_ids: string[];
}

export interface ChargeView {
  id: number;
  charge_name: string;
  charge_type: string;
  amount: number;
  status: string;
  notes: string | null;
  store_id: number;
  created_by: Caller['sub'];
  updated_by: Caller['sub'] | null;
  created_at: string | null;
  updated_at: string | null;
}

/** How a charge is shown: storage keeps and publishes the shown charge, views/ shapes it. */
export type ShowCharge = (doc: ChargeDoc, clock: ClinicClock) => ChargeView;
