import type { Network } from './schema.ts'

// Every network an asset of the catalogue is deposited and withdrawn on, with its consensus
// mechanism: the public site shows it on each asset page (MiCA asks for the consensus mechanism
// and its sustainability indicators), and the withdrawal service validates addresses per network.
// Facts from general public knowledge of each project, as of 2025; sentences are our own.

const pos = 'proof-of-stake'
const pow = 'proof-of-work'
const poa = 'proof-of-authority'
const rollup = 'rollup'
const cometBft = 'Proof of stake (CometBFT)'
const optimisticRollup = 'Optimistic rollup settled on Ethereum'
const opStackRollup = 'Optimistic rollup settled on Ethereum (OP Stack)'
const validityRollup = 'Validity (zero-knowledge) rollup settled on Ethereum'

export const networks: readonly Network[] = [
  { name: 'Akash', consensusFamily: pos, consensus: cometBft },
  { name: 'Algorand', consensusFamily: pos, consensus: 'Pure proof of stake' },
  { name: 'Aptos', consensusFamily: pos, consensus: 'Proof of stake (AptosBFT)' },
  { name: 'Arbitrum One', consensusFamily: rollup, consensus: optimisticRollup },
  {
    name: 'Arweave',
    consensusFamily: pow,
    consensus: 'Succinct Proofs of Random Access (proof of work combined with proof of storage)',
  },
  {
    name: 'Astar',
    consensusFamily: pos,
    consensus:
      'Polkadot parachain: collators produce blocks, the Polkadot relay chain finalises them',
  },
  { name: 'Avalanche C-Chain', consensusFamily: pos, consensus: 'Proof of stake (Snowman)' },
  { name: 'Axelar', consensusFamily: pos, consensus: cometBft },
  { name: 'BandChain', consensusFamily: pos, consensus: cometBft },
  { name: 'Base', consensusFamily: rollup, consensus: opStackRollup },
  {
    name: 'Berachain',
    consensusFamily: pos,
    consensus: 'Proof of Liquidity (a proof-of-stake variant)',
  },
  { name: 'Bitcoin', consensusFamily: pow, consensus: 'Proof of work (SHA-256)' },
  { name: 'Bitcoin Cash', consensusFamily: pow, consensus: 'Proof of work (SHA-256)' },
  {
    name: 'Bittensor',
    consensusFamily: 'other',
    consensus: 'Substrate chain; subnet rewards set by Yuma Consensus',
  },
  { name: 'BNB Smart Chain', consensusFamily: poa, consensus: 'Proof of staked authority' },
  { name: 'Cardano', consensusFamily: pos, consensus: 'Proof of stake (Ouroboros Praos)' },
  { name: 'Casper', consensusFamily: pos, consensus: 'Proof of stake (Highway)' },
  { name: 'Celestia', consensusFamily: pos, consensus: cometBft },
  { name: 'Celo', consensusFamily: rollup, consensus: opStackRollup },
  { name: 'Chiliz', consensusFamily: poa, consensus: 'Proof of staked authority' },
  {
    name: 'Conflux',
    consensusFamily: 'hybrid',
    consensus: 'Tree-Graph proof of work with proof-of-stake finality',
  },
  { name: 'Cosmos Hub', consensusFamily: pos, consensus: cometBft },
  {
    name: 'Cronos',
    consensusFamily: poa,
    consensus: 'CometBFT with a permissioned validator set',
  },
  {
    name: 'Dash',
    consensusFamily: pow,
    consensus: 'Proof of work (X11) with masternode ChainLocks',
  },
  {
    name: 'Decred',
    consensusFamily: 'hybrid',
    consensus: 'Hybrid proof of work (BLAKE3) and proof of stake',
  },
  { name: 'DigiByte', consensusFamily: pow, consensus: 'Proof of work (five mining algorithms)' },
  { name: 'Dogecoin', consensusFamily: pow, consensus: 'Proof of work (Scrypt)' },
  { name: 'dYdX Chain', consensusFamily: pos, consensus: cometBft },
  { name: 'Dymension', consensusFamily: pos, consensus: cometBft },
  {
    name: 'eCash',
    consensusFamily: pow,
    consensus: 'Proof of work (SHA-256) with Avalanche pre-consensus',
  },
  { name: 'Ethereum', consensusFamily: pos, consensus: 'Proof of stake (Gasper)' },
  { name: 'Ethereum Classic', consensusFamily: pow, consensus: 'Proof of work (Etchash)' },
  { name: 'Fantom', consensusFamily: pos, consensus: 'Proof of stake (Lachesis aBFT)' },
  {
    name: 'Filecoin',
    consensusFamily: 'other',
    consensus: 'Expected Consensus weighted by Proof-of-Replication and Proof-of-Spacetime',
  },
  { name: 'Flare', consensusFamily: pos, consensus: 'Proof of stake (Snowman++)' },
  { name: 'Flow', consensusFamily: pos, consensus: 'Proof of stake with specialised node roles' },
  {
    name: 'Harmony',
    consensusFamily: pos,
    consensus: 'Effective proof of stake with sharding (FBFT)',
  },
  {
    name: 'Hedera',
    consensusFamily: pos,
    consensus: 'Hashgraph (asynchronous BFT) weighted by proof of stake',
  },
  { name: 'Hyperliquid', consensusFamily: pos, consensus: 'Proof of stake (HyperBFT)' },
  { name: 'Injective', consensusFamily: pos, consensus: cometBft },
  {
    name: 'Internet Computer',
    consensusFamily: pos,
    consensus: 'Proof of stake governed by the Network Nervous System (threshold relay)',
  },
  { name: 'IOTA', consensusFamily: pos, consensus: 'Proof of stake (Mysticeti)' },
  {
    name: 'IoTeX',
    consensusFamily: pos,
    consensus: 'Roll-DPoS (randomised delegated proof of stake)',
  },
  { name: 'Kaspa', consensusFamily: pow, consensus: 'Proof of work (kHeavyHash, GHOSTDAG)' },
  { name: 'Kava', consensusFamily: pos, consensus: cometBft },
  { name: 'Kusama', consensusFamily: pos, consensus: 'Nominated proof of stake (BABE, GRANDPA)' },
  { name: 'Litecoin', consensusFamily: pow, consensus: 'Proof of work (Scrypt)' },
  {
    name: 'Manta Pacific',
    consensusFamily: rollup,
    consensus: 'Layer-2 rollup settled on Ethereum',
  },
  { name: 'Mantle', consensusFamily: rollup, consensus: 'Layer-2 rollup settled on Ethereum' },
  {
    name: 'Metis',
    consensusFamily: rollup,
    consensus: 'Layer-2 rollup settled on Ethereum, with a decentralised sequencer',
  },
  { name: 'Mina', consensusFamily: pos, consensus: 'Proof of stake (Ouroboros Samasika)' },
  {
    name: 'Moonbeam',
    consensusFamily: pos,
    consensus:
      'Polkadot parachain: collators produce blocks, the Polkadot relay chain finalises them',
  },
  {
    name: 'MultiversX',
    consensusFamily: pos,
    consensus: 'Secure proof of stake with adaptive state sharding',
  },
  {
    name: 'Nano',
    consensusFamily: 'other',
    consensus: 'Open Representative Voting (block lattice)',
  },
  { name: 'NEAR', consensusFamily: pos, consensus: 'Proof of stake (Nightshade sharding)' },
  {
    name: 'Neo N3',
    consensusFamily: 'other',
    consensus:
      'Delegated Byzantine Fault Tolerance (dBFT 2.0), consensus nodes elected by NEO holders',
  },
  { name: 'Nervos', consensusFamily: pow, consensus: 'Proof of work (Eaglesong, NC-Max)' },
  { name: 'Oasis', consensusFamily: pos, consensus: cometBft },
  { name: 'Ontology', consensusFamily: pos, consensus: 'Proof of stake (VBFT)' },
  { name: 'Optimism', consensusFamily: rollup, consensus: opStackRollup },
  { name: 'Osmosis', consensusFamily: pos, consensus: cometBft },
  { name: 'Polkadot', consensusFamily: pos, consensus: 'Nominated proof of stake (BABE, GRANDPA)' },
  {
    name: 'Polygon',
    consensusFamily: pos,
    consensus: 'Proof of stake (Heimdall and Bor, checkpointed to Ethereum)',
  },
  { name: 'Polymesh', consensusFamily: pos, consensus: 'Nominated proof of stake (BABE, GRANDPA)' },
  { name: 'Qtum', consensusFamily: pos, consensus: 'Proof of stake (UTXO-based)' },
  {
    name: 'Radix',
    consensusFamily: pos,
    consensus: 'Delegated proof of stake (HotStuff-based BFT)',
  },
  { name: 'Ravencoin', consensusFamily: pow, consensus: 'Proof of work (KAWPOW)' },
  { name: 'Ronin', consensusFamily: pos, consensus: 'Delegated proof of stake' },
  { name: 'Scroll', consensusFamily: rollup, consensus: validityRollup },
  { name: 'Secret', consensusFamily: pos, consensus: cometBft },
  { name: 'Sei', consensusFamily: pos, consensus: 'Proof of stake (Twin-Turbo consensus)' },
  {
    name: 'SEPA',
    consensusFamily: 'not-applicable',
    consensus: 'Not a blockchain: euro bank transfers in the Single Euro Payments Area',
  },
  { name: 'Sia', consensusFamily: pow, consensus: 'Proof of work (Blake2b)' },
  {
    name: 'Solana',
    consensusFamily: pos,
    consensus: 'Proof of stake with Proof of History (Tower BFT)',
  },
  { name: 'Sonic', consensusFamily: pos, consensus: 'Proof of stake (asynchronous BFT)' },
  {
    name: 'Stacks',
    consensusFamily: 'other',
    consensus: 'Proof of Transfer, anchored to Bitcoin',
  },
  {
    name: 'Starknet',
    consensusFamily: rollup,
    consensus: 'Validity rollup settled on Ethereum (STARK proofs)',
  },
  {
    name: 'Stellar',
    consensusFamily: 'federated-byzantine-agreement',
    consensus: 'Stellar Consensus Protocol (federated Byzantine agreement)',
  },
  { name: 'Sui', consensusFamily: pos, consensus: 'Proof of stake (Mysticeti)' },
  { name: 'Tezos', consensusFamily: pos, consensus: 'Liquid proof of stake (Tenderbake)' },
  { name: 'Theta', consensusFamily: pos, consensus: 'Multi-level BFT proof of stake' },
  { name: 'THORChain', consensusFamily: pos, consensus: cometBft },
  { name: 'TON', consensusFamily: pos, consensus: 'Proof of stake (Catchain BFT)' },
  { name: 'Tron', consensusFamily: pos, consensus: 'Delegated proof of stake' },
  { name: 'VeChainThor', consensusFamily: poa, consensus: 'Proof of authority' },
  { name: 'WAX', consensusFamily: pos, consensus: 'Delegated proof of stake' },
  { name: 'XDC Network', consensusFamily: pos, consensus: 'Delegated proof of stake (XDPoS)' },
  {
    name: 'XRP Ledger',
    consensusFamily: 'federated-byzantine-agreement',
    consensus: 'XRP Ledger Consensus Protocol (validators with unique node lists)',
  },
  { name: 'Zcash', consensusFamily: pow, consensus: 'Proof of work (Equihash)' },
  { name: 'ZetaChain', consensusFamily: pos, consensus: cometBft },
  { name: 'Zilliqa', consensusFamily: pos, consensus: 'Proof of stake with practical BFT' },
  { name: 'ZKsync Era', consensusFamily: rollup, consensus: validityRollup },
]
